-- game_verdicts: one row per verified game id: does its PGN agree with its JSON, and does the
-- final position agree with the recorded result (pipeline/domain/verify.py)? Kept across runs: each
-- game is verified once.
CREATE TABLE IF NOT EXISTS game_verdicts (
    game_id     VARCHAR PRIMARY KEY,
    verdict     VARCHAR NOT NULL,          -- 'agrees' | 'off_board' | 'mismatch' | 'unreadable'
    detail      VARCHAR NOT NULL,          -- what disagrees, '' when nothing does
    verified_at TIMESTAMPTZ NOT NULL
);
