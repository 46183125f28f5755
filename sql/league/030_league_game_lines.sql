-- The league store: every line the games export sent for the league, exactly as it arrived
-- (finished and ongoing games, every variant, lines that are not JSON), the last copy of each game.
-- grain: one row per game id ('line:' || md5 of the line for a line without one).
CREATE TABLE IF NOT EXISTS league_game_lines (
    line_key    VARCHAR PRIMARY KEY,
    stream_user VARCHAR NOT NULL,   -- the player whose stream it arrived in last
    white_id    VARCHAR,            -- players.white.user.id, NULL when anonymous or unreadable
    black_id    VARCHAR,
    created_ms  BIGINT,             -- createdAt; for a line without one, the createdAt before it in its stream
    seq         BIGINT NOT NULL,    -- arrival order: ties of createdAt are served in it
    line        VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
