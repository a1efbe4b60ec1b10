-- A refund whose provider call never got its outcome committed (a timeout, a crash between the
-- call and the commit) is finished by the payment sweeper (issue 25): due_at is when it may take
-- it (a lease while it works, like orders.payment_due_at). A refund the processor refuses ends
-- 'failed' with the processor's reason, so its amount no longer counts as in flight.
ALTER TABLE refunds
    ADD COLUMN due_at  timestamptz,
    ADD COLUMN failure text;
ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_status_check CHECK (status IN ('pending', 'done', 'failed'));
UPDATE refunds SET due_at = created_at WHERE status = 'pending';
CREATE INDEX refunds_due ON refunds (due_at) WHERE status = 'pending';
