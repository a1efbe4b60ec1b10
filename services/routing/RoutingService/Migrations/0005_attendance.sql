-- Weekly goals may count lectures attended.
ALTER TABLE goals DROP CONSTRAINT goals_metric_check;
ALTER TABLE goals ADD CONSTRAINT goals_metric_check
    CHECK (metric IN ('steps', 'distance', 'venues', 'lectures_attended'));

-- Class occurrences a student attended (a signed-in Wi-Fi fix at the class's venue between its
-- start - 10 min and its end): the meeting and the occurrence's start only, never a position.
-- No foreign key: an attendance stays counted when its meeting is later withdrawn.
CREATE TABLE class_attendance (
    user_id           uuid NOT NULL,
    meeting_id        uuid NOT NULL,
    occurrence_start  timestamptz NOT NULL,
    week_start        date NOT NULL,
    attended_at       timestamptz NOT NULL,
    PRIMARY KEY (user_id, meeting_id, occurrence_start)
);
CREATE INDEX class_attendance_week ON class_attendance (user_id, week_start);
