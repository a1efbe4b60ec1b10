-- An order that costs nothing (a free e-card) is paid by no card. Every other order names one.
ALTER TABLE orders ALTER COLUMN payment_method_id DROP NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_card_unless_free CHECK (payment_method_id IS NOT NULL OR total_amount = 0);
-- The daily cap on free e-cards counts an account's free e-cards of one day.
CREATE INDEX orders_free_ecards ON orders (user_id, created_at) WHERE kind = 'ecard' AND total_amount = 0;
