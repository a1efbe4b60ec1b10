-- The highlights of a level (the editor's picks first, then the most recently active) read
-- from an index instead of sorting every bill of the level: 28 ms → 0.1 ms at 100,000 bills,
-- found by make bench-civic.
CREATE INDEX bills_level_highlighted_idx ON civic.bills (level, highlighted DESC, activity_at DESC, id DESC);
