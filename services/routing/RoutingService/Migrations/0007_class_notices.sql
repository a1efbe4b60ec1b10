-- Class reminders a student asked for (no row: off, the default), how long before a class.
CREATE TABLE class_reminder_settings (
    user_id         uuid PRIMARY KEY,
    minutes_before  int NOT NULL CHECK (minutes_before BETWEEN 5 AND 120),
    updated_at      timestamptz NOT NULL
);

-- Which student was reminded of which occurrence: at most once each, however many replicas
-- look. Rows of occurrences started a day ago are pruned.
CREATE TABLE class_reminders_sent (
    user_id           uuid NOT NULL,
    meeting_id        uuid NOT NULL,
    occurrence_start  timestamptz NOT NULL,
    sent_at           timestamptz NOT NULL,
    PRIMARY KEY (user_id, meeting_id, occurrence_start)
);
CREATE INDEX class_reminders_sent_start ON class_reminders_sent (occurrence_start);

-- Moves with every timetable import that changes something and every module deletion, in the
-- same transaction: each replica polls it and drops the class occurrences it holds in memory.
CREATE TABLE timetable_version (
    id       int PRIMARY KEY CHECK (id = 1),
    version  bigint NOT NULL
);
INSERT INTO timetable_version (id, version) VALUES (1, 0);
