-- ingest_cursors: one row per (user id, endpoint): how far that player's data is synced.
-- Advanced only in the same transaction as the data it covers, so a run killed anywhere
-- resumes exactly where its last commit left it.
CREATE TABLE IF NOT EXISTS ingest_cursors (
    user_id       VARCHAR NOT NULL,
    endpoint      VARCHAR NOT NULL,       -- 'games' | 'rating_history'
    since_ms      BIGINT,                 -- games: the next request's `since` (createdAt, ms, inclusive)
    synced_games  INTEGER,                -- perfs.antichess.games of the profile this endpoint was last fully synced at
    synced_rating INTEGER,                -- perfs.antichess.rating of that profile (rating_history)
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, endpoint)
);
