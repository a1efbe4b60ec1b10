-- The sandbox catalogue: 20,000 products made deterministically from their number (the same
-- on every machine), searched with full text plus trigram similarity on the title.
CREATE TABLE social.catalog_items (
    id uuid PRIMARY KEY,
    number integer NOT NULL UNIQUE,
    category text NOT NULL,
    brand text NOT NULL,
    title text NOT NULL,
    description text NOT NULL,
    features text[] NOT NULL,
    price_amount bigint NOT NULL CHECK (price_amount > 0),
    currency text NOT NULL,
    available boolean NOT NULL,
    image_url text NOT NULL,
    rating_tenths integer NOT NULL CHECK (rating_tenths BETWEEN 10 AND 50),
    search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', brand), 'B')
        || setweight(to_tsvector('english', category), 'B') || setweight(to_tsvector('english', description), 'C')
    ) STORED
);

WITH words AS (
    SELECT
        ARRAY['books', 'toys', 'kitchen', 'electronics', 'garden', 'sports', 'beauty', 'games', 'music', 'home']
            AS categories,
        ARRAY['Northwind', 'Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell',
              'Cyberdyne', 'Soylent', 'Gringotts', 'Monarch', 'Oscorp', 'Wonka', 'Aperture', 'Massive', 'Dunder',
              'Pied Piper', 'Bluth', 'Krusty', 'Nakatomi', 'Oceanic', 'Prestige', 'Sirius', 'Virtucon', 'Zorg',
              'Duff', 'Ollivander'] AS brands,
        ARRAY['Classic', 'Deluxe', 'Compact', 'Wireless', 'Handmade', 'Organic', 'Vintage', 'Portable', 'Premium',
              'Smart', 'Cozy', 'Bright', 'Rustic', 'Modern', 'Travel', 'Mini', 'Giant', 'Silent', 'Golden',
              'Eco'] AS adjectives,
        ARRAY['Oak', 'Steel', 'Ceramic', 'Cotton', 'Bamboo', 'Leather', 'Glass', 'Wool', 'Copper', 'Linen']
            AS materials,
        ARRAY[
            ARRAY['Novel', 'Cookbook', 'Atlas', 'Journal', 'Poetry Collection', 'Biography', 'Comic', 'Guide'],
            ARRAY['Robot', 'Puzzle', 'Teddy Bear', 'Kite', 'Train Set', 'Yo-Yo', 'Doll House', 'Building Blocks'],
            ARRAY['Mug', 'Teapot', 'Knife Set', 'Cutting Board', 'Espresso Maker', 'Blender', 'Frying Pan', 'Spice Rack'],
            ARRAY['Headphones', 'Speaker', 'Charger', 'Keyboard', 'Camera', 'Smartwatch', 'Lamp', 'Radio'],
            ARRAY['Planter', 'Watering Can', 'Bird Feeder', 'Hammock', 'Seed Kit', 'Garden Gloves', 'Lantern', 'Trowel'],
            ARRAY['Yoga Mat', 'Water Bottle', 'Tennis Racket', 'Backpack', 'Football', 'Jump Rope', 'Dumbbells', 'Helmet'],
            ARRAY['Perfume', 'Face Cream', 'Hair Brush', 'Soap Set', 'Lip Balm', 'Bath Salts', 'Nail Kit', 'Mirror'],
            ARRAY['Board Game', 'Card Game', 'Chess Set', 'Dice Set', 'Jigsaw', 'Trivia Game', 'Domino Set', 'Puzzle Box'],
            ARRAY['Guitar', 'Ukulele', 'Vinyl Record', 'Harmonica', 'Drum Pad', 'Metronome', 'Music Box', 'Flute'],
            ARRAY['Blanket', 'Candle', 'Vase', 'Clock', 'Cushion', 'Picture Frame', 'Rug', 'Doormat']
        ] AS nouns,
        ARRAY['gift wrapped on request', 'two-year warranty', 'ships in 24 hours', 'recyclable packaging',
              'made in Europe', 'award winning design', 'dishwasher safe', 'fits in a bag', 'hand finished',
              'for ages 8 and up', 'batteries included', 'machine washable'] AS feature_words
), numbered AS (
    SELECT n, (n * 2654435761::bigint) % 4294967296 AS h FROM generate_series(1, 20000) AS n
)
INSERT INTO social.catalog_items
    (id, number, category, brand, title, description, features, price_amount, currency, available, image_url,
     rating_tenths)
SELECT
    md5('backplane-sandbox-item-' || n)::uuid,
    n,
    categories[1 + n % 10],
    brands[1 + (h / 7) % 30],
    adjectives[1 + (h / 211) % 20] || ' ' || materials[1 + (h / 4219) % 10] || ' '
        || nouns[1 + n % 10][1 + (h / 42197) % 8] || ' ' || (1 + n / 10 % 500),
    'A ' || lower(adjectives[1 + (h / 211) % 20]) || ' ' || lower(nouns[1 + n % 10][1 + (h / 42197) % 8])
        || ' by ' || brands[1 + (h / 7) % 30] || ', made of ' || lower(materials[1 + (h / 4219) % 10])
        || '; ' || feature_words[1 + (h / 13) % 12] || '.',
    ARRAY[feature_words[1 + (h / 13) % 12], feature_words[1 + (h / 17) % 12 ], feature_words[1 + (h / 19) % 12]],
    199 + (h / 3) % 19800,
    'EUR',
    n % 23 <> 0,
    'https://images.sandbox.backplane.invalid/items/' || n || '.jpg',
    10 + (h / 29) % 41
FROM numbered, words;

CREATE INDEX catalog_items_search ON social.catalog_items USING gin (search);
CREATE INDEX catalog_items_title_trgm ON social.catalog_items USING gin (title gin_trgm_ops);
CREATE INDEX catalog_items_category_price ON social.catalog_items (category, price_amount);
ANALYZE social.catalog_items;
