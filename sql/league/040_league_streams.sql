-- The league store's cursors: a games export that ran to its end for the league. Every game of
-- user_id (against vs, when vs is not '') created at or after from_ms (NULL: all) is in
-- league_game_lines as of fetched_at.
-- grain: one row per (user_id, vs).
CREATE TABLE IF NOT EXISTS league_streams (
    user_id    VARCHAR NOT NULL,
    vs         VARCHAR NOT NULL,
    from_ms    BIGINT,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, vs)
);
