-- raw_rating_histories: one row per user id, GET /api/user/{id}/rating-history exactly as it last arrived.
CREATE TABLE IF NOT EXISTS raw_rating_histories (
    user_id    VARCHAR PRIMARY KEY,
    payload    JSON NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
