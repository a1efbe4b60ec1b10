-- A local file's members carry their terms of office, and a file marked as sample data marks its
-- people; the feed's people keep an empty list and false.
ALTER TABLE civic.people ADD COLUMN IF NOT EXISTS terms jsonb NOT NULL DEFAULT '[]';
ALTER TABLE civic.people ADD COLUMN IF NOT EXISTS sample boolean NOT NULL DEFAULT false;

-- A stated position keeps the day its source was last checked, who entered it (`file`, or the
-- editor's account id) and when.
ALTER TABLE civic.stated_positions ADD COLUMN IF NOT EXISTS checked_on date;
ALTER TABLE civic.stated_positions ADD COLUMN IF NOT EXISTS entered_by text;
ALTER TABLE civic.stated_positions ADD COLUMN IF NOT EXISTS entered_at timestamptz;
ALTER TABLE civic.stated_positions DROP CONSTRAINT IF EXISTS stated_positions_position_check;
ALTER TABLE civic.stated_positions ADD CONSTRAINT stated_positions_position_check
    CHECK (position IN ('support', 'oppose', 'neutral', 'undecided'));
CREATE INDEX IF NOT EXISTS stated_positions_bill_idx ON civic.stated_positions (bill_id);
