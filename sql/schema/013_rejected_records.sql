-- rejected_records: one row per (source, record_key) that arrived but could not be typed, with the reason.
-- Nothing is dropped: the payload is kept as text, exactly as it arrived.
CREATE TABLE IF NOT EXISTS rejected_records (
    source     VARCHAR NOT NULL,          -- 'user' | 'rating_history' | 'game'
    record_key VARCHAR NOT NULL,          -- the id, or md5 of the payload when it has none
    reason     VARCHAR NOT NULL,
    payload    VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (source, record_key)
);
