-- The orders the API places. Nothing here stops a duplicate: the Idempotency-Key is what keeps a
-- retried request from placing a second order.
CREATE TABLE IF NOT EXISTS http_orders (
    id       bigserial PRIMARY KEY,
    customer text      NOT NULL,
    item     text      NOT NULL,
    quantity integer   NOT NULL
);
