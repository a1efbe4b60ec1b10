-- The profile's billing and shipping addresses (Gifter), as orders' PostalAddress JSON, and
-- whether friends may have gifts shipped to the shipping address (off until the user turns it
-- on). Kept by social, beside the friendships that decide who may use the shared address.
CREATE TABLE social.addresses (
    user_id uuid PRIMARY KEY,
    billing jsonb,
    shipping jsonb,
    share_shipping boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL
);
