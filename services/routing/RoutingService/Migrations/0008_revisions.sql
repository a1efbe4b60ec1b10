-- A counter for the venues and one for the access points, moved by every statement that writes
-- them, in that statement's transaction: each replica polls them and drops what it holds in
-- memory when one has moved. (Until this migration the replicas compared the rows' count and
-- newest `updated_at`, which missed an edit stamped at or before the newest change: a replica
-- whose clock ran behind another's, or two edits in one microsecond.)
CREATE TABLE revisions (
    name      text PRIMARY KEY,
    revision  bigint NOT NULL
);
INSERT INTO revisions (name, revision) VALUES ('venues', 0), ('access_points', 0);

CREATE FUNCTION bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('UPDATE %I.revisions SET revision = revision + 1 WHERE name = $1', TG_TABLE_SCHEMA)
        USING TG_TABLE_NAME;
    RETURN NULL;
END
$$;

CREATE TRIGGER venues_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON venues
    FOR EACH STATEMENT EXECUTE FUNCTION bump_revision();
CREATE TRIGGER access_points_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON access_points
    FOR EACH STATEMENT EXECUTE FUNCTION bump_revision();
