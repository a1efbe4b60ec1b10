-- Which APNs host knows an iOS device's token: a development build's token is only valid at the
-- sandbox, a TestFlight or App Store build's only in production. The app says which when it
-- registers; devices registered before this column existed are production ones.
ALTER TABLE devices
    ADD COLUMN apns_environment text NOT NULL DEFAULT 'production'
        CHECK (apns_environment IN ('sandbox', 'production'));
