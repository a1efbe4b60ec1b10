-- Where each e-mail's hand-over to the SMTP relay stands while its job runs: 'sending' is
-- committed before the message's content goes out, 'accepted' after the relay's 250 reply. A job
-- retried after its replica died skips an accepted mail and resends (same Message-ID) one that
-- was only 'sending'. The row goes when the job completes.
CREATE TABLE mail_handovers (
    notification_id  uuid PRIMARY KEY,
    state            text NOT NULL CHECK (state IN ('sending', 'accepted')),
    at               timestamptz NOT NULL
);
