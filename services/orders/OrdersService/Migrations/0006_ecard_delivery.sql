-- E-cards the phone sends itself (`delivery` `device`): the rendered card's public link, kept
-- from printing's `printing.ecard_ready` so that the order can hand it to the phone.
ALTER TABLE orders ADD COLUMN ecard_image_url text;
