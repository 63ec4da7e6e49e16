-- No unique key on payment_id, on purpose: the inbox is what keeps each payment once, and a
-- payment posted twice would show here as two rows.
CREATE TABLE IF NOT EXISTS ledger (
    payment_id text   NOT NULL,
    account    text   NOT NULL,
    cents      bigint NOT NULL
);
