-- Cards sent are counted once per order (`order_id`), whatever delivers its `orders.paid` event
-- again. Rows of events counted before this column existed keep it null.
ALTER TABLE social.counted_events ADD COLUMN order_id text UNIQUE;

-- The standard listing: favourites first, then newest first.
CREATE INDEX contacts_by_favourite ON social.contacts (user_id, favourite DESC, created_at DESC, id DESC);
