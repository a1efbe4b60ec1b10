-- A notification addressed to one device without an account (PolitiMap's new-bill
-- subscriptions are kept per device push token, not per account): the device as JSON
-- ({deviceId, token, platform, app, apnsEnvironment}); push only, never in an inbox.
ALTER TABLE notifications ADD COLUMN device jsonb;
