-- The league store: each player's rating history (all perfs, wire form) as last fetched.
-- grain: one row per Lichess user id.
CREATE TABLE IF NOT EXISTS league_histories (
    user_id    VARCHAR PRIMARY KEY,
    payload    VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
