-- raw_games: one row per Lichess game id (any variant), the export JSON (pgnInJson=true) as it last arrived.
-- A game between two registered players arrives in both players' streams; it is kept once.
CREATE TABLE IF NOT EXISTS raw_games (
    game_id    VARCHAR PRIMARY KEY,
    payload    JSON NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
