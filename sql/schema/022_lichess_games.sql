-- lichess_games: one row per Lichess game id, typed from raw_games. All variants are kept
-- (linking reports a non-antichess game between paired players as not_antichess).
CREATE TABLE IF NOT EXISTS lichess_games (
    game_id           VARCHAR PRIMARY KEY,
    created_at        TIMESTAMPTZ NOT NULL,
    last_move_at      TIMESTAMPTZ NOT NULL,
    white_id          VARCHAR,
    black_id          VARCHAR,
    white_name        VARCHAR,
    black_name        VARCHAR,
    rated             BOOLEAN NOT NULL,
    variant           VARCHAR NOT NULL,
    speed             VARCHAR,
    clock_initial_s   INTEGER,
    clock_increment_s INTEGER,
    status            VARCHAR NOT NULL,
    winner            VARCHAR,              -- 'white' | 'black' | NULL (draw or no result)
    white_rating      INTEGER,              -- pre-game
    black_rating      INTEGER,
    white_rating_diff INTEGER,
    black_rating_diff INTEGER,
    moves             VARCHAR,
    pgn               VARCHAR,
    url               VARCHAR NOT NULL
);
