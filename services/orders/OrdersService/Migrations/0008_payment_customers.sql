-- Stripe charges a saved PaymentMethod more than once only when it is attached to a Customer
-- (issue 25): one processor customer per user and provider, made when the user first saves a
-- card (or first pays with a card saved before this), and the customer each saved card is
-- attached to. A card with no customer_id was saved before, or with a provider that has no
-- customers (the sandbox).
CREATE TABLE payment_customers (
    user_id      uuid NOT NULL,
    provider     text NOT NULL,
    customer_id  text NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, provider)
);
ALTER TABLE payment_methods ADD COLUMN customer_id text;
