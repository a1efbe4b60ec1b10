-- Share pages (POST /v1/orders/{id}/share): one active page per order at most. The token is
-- kept as is, as the e-cards' tokens are (256 random bits, base64url), so that asking again
-- returns the same link; a revoked page keeps its row (revoked_at) and its token never answers
-- again. The image is a copy made when the page is made (front and greeting side, never the
-- address side), so the page does not depend on the order's files.
CREATE TABLE shares (
    id          uuid PRIMARY KEY,
    order_id    text NOT NULL,
    user_id     text NOT NULL,
    token       text NOT NULL UNIQUE,
    title       text NOT NULL,
    description text NOT NULL,
    image       bytea NOT NULL,
    width       integer NOT NULL,
    height      integer NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
CREATE UNIQUE INDEX shares_active_order_idx ON shares (order_id) WHERE revoked_at IS NULL;
