-- Activity reports already counted, by the id the phone gave them: a report retried after a
-- lost answer is counted once.
CREATE TABLE activity_reports (
    user_id      uuid NOT NULL,
    report_id    uuid NOT NULL,
    received_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, report_id)
);
