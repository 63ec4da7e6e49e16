-- The business tables; no unique key on purpose: an order or a shipment applied twice shows as two rows.
CREATE TABLE IF NOT EXISTS orders (order_id text NOT NULL, cents bigint NOT NULL);
CREATE TABLE IF NOT EXISTS shipments (order_id text NOT NULL);
