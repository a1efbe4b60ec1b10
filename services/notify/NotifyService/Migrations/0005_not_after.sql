-- A notification that is worth pushing or mailing only until a moment (a class reminder: until
-- the class starts). A delivery job due at or after it is not sent (logged `skipped`); the
-- inbox item stays. NULL: no such moment.
ALTER TABLE notifications ADD COLUMN not_after timestamptz;
