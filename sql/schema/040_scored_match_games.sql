-- scored_match_games: one row per (stage, round, board, game id): every game between two paired
-- players in or near the round window, counted or not, with the reason (TEAM-FMT-3, TEAM-SCORE-1).
CREATE TABLE IF NOT EXISTS scored_match_games (
    stage      VARCHAR NOT NULL,
    round      INTEGER NOT NULL,
    board      INTEGER NOT NULL,
    entrant_a  VARCHAR NOT NULL,
    entrant_b  VARCHAR NOT NULL,
    player_a   VARCHAR NOT NULL,
    player_b   VARCHAR NOT NULL,
    game_id    VARCHAR NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    last_move_at TIMESTAMPTZ NOT NULL,
    time_control VARCHAR,                   -- the game's clock as players write it ('3+0'); NULL without one
    part       VARCHAR,                     -- the part with this clock ('2+5'); NULL if no part has it
    counted    BOOLEAN NOT NULL,
    reason     VARCHAR NOT NULL,            -- 'counted' or why not
    a_points   DOUBLE NOT NULL,             -- 0 when not counted
    b_points   DOUBLE NOT NULL,
    PRIMARY KEY (stage, round, board, entrant_a, game_id)
);
