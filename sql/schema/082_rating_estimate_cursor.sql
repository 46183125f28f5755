-- rating_estimate_cursor: at most one row, what rating_estimates covers: the estimator's settings
-- (players, default opponent RD, its code) and the games estimated (how many, the last in rating
-- order, a digest of their rows). A night resumes only when all of them still hold.
CREATE TABLE IF NOT EXISTS rating_estimate_cursor (
    id           INTEGER PRIMARY KEY,   -- always 1
    settings     VARCHAR NOT NULL,
    games        BIGINT NOT NULL,
    last_move_at TIMESTAMPTZ,
    created_at   TIMESTAMPTZ,
    game_id      VARCHAR,
    digest       VARCHAR NOT NULL
);
