-- Modules (a code such as 'COS 301') and their class meetings, imported by admins from
-- iCalendar or CSV. A meeting is one VEVENT (or CSV row): a first start as wall-clock time in
-- its zone, a length, an optional weekly recurrence and cancelled starts; occurrences are
-- expanded in the service (MeetingSchedule), never stored.
CREATE TABLE modules (
    code         text PRIMARY KEY,
    name         text NOT NULL,
    faculty      text NOT NULL DEFAULT '',
    updated_at   timestamptz NOT NULL
);

CREATE TABLE class_meetings (
    id               uuid PRIMARY KEY,
    uid              text NOT NULL UNIQUE,
    module_code      text NOT NULL REFERENCES modules (code) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('lecture', 'tutorial', 'practical')),
    venue_id         uuid REFERENCES venues (id) ON DELETE SET NULL,
    location         text NOT NULL,
    time_zone        text NOT NULL,
    local_start      text NOT NULL,
    first_start      timestamptz NOT NULL,
    -- NULL: open-ended.
    last_end         timestamptz,
    duration_seconds int NOT NULL CHECK (duration_seconds > 0),
    -- NULL: a single meeting; else ISO weekdays (1 Monday ... 7 Sunday), empty for DTSTART's.
    weekdays         int[],
    interval_weeks   int NOT NULL DEFAULT 1,
    week_start       int NOT NULL DEFAULT 1,
    until            timestamptz,
    max_count        int,
    exceptions       timestamptz[] NOT NULL DEFAULT '{}',
    updated_at       timestamptz NOT NULL
);
CREATE INDEX class_meetings_module ON class_meetings (module_code);
CREATE INDEX class_meetings_venue ON class_meetings (venue_id);

-- Which modules a student takes.
CREATE TABLE enrolments (
    user_id      uuid NOT NULL,
    module_code  text NOT NULL REFERENCES modules (code) ON DELETE CASCADE,
    PRIMARY KEY (user_id, module_code)
);
CREATE INDEX enrolments_module ON enrolments (module_code);

-- A student's private iCalendar feed: whoever holds the secret reads the timetable.
CREATE TABLE timetable_feeds (
    user_id      uuid PRIMARY KEY,
    secret       text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL
);
