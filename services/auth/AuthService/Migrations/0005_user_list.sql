-- The admin's list of users: pages in creation order, and prefixes of usernames and e-mail
-- addresses (text_pattern_ops, so LIKE 'prefix%' uses the index whatever the collation).
CREATE INDEX users_created ON users (created_at, id);
CREATE INDEX users_username_prefix ON users (username text_pattern_ops);
CREATE INDEX users_email_prefix ON users (lower(email) text_pattern_ops);
