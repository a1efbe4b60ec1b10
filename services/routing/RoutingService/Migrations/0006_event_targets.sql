-- Events may target modules (codes) and faculties; an event's venue targets the students with a
-- class there. `GET /v1/me/events` lists the events that concern the caller first.
ALTER TABLE events ADD COLUMN modules text[] NOT NULL DEFAULT '{}';
ALTER TABLE events ADD COLUMN faculties text[] NOT NULL DEFAULT '{}';
