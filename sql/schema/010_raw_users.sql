-- raw_users: one row per Lichess user id, the profile JSON exactly as it last arrived.
-- Raw layer: nothing typed here; lichess_users is derived from it.
CREATE TABLE IF NOT EXISTS raw_users (
    user_id    VARCHAR PRIMARY KEY,
    payload    JSON NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
