-- Catalogue search matches `q <% lower(title)` (trigram word similarity of the lower-cased title),
-- which the trigram index of 0002 on `title` itself cannot serve: every search read all 20,000
-- rows (about 190 ms on the loaded 2-core machine). With an index on the same expression the
-- full-text and the trigram conditions are two bitmap index scans (under 1 ms).
CREATE INDEX catalog_items_title_lower_trgm ON social.catalog_items USING gin (lower(title) public.gin_trgm_ops);
ANALYZE social.catalog_items;
