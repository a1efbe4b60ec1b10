-- The chamber each person sits in (Open States' current_role.org_classification), so that a
-- state's Assembly district 30 and Senate district 30 are two seats, not one. NULL until the
-- next import writes it: the importer's fingerprint of a person includes the chamber, so every
-- person already stored counts as changed once and is written again with it.
ALTER TABLE civic.people ADD COLUMN IF NOT EXISTS chamber text
    CHECK (chamber IN ('upper', 'lower', 'legislature'));
CREATE INDEX IF NOT EXISTS people_chamber_idx ON civic.people (jurisdiction_id, chamber, district, name, id);
