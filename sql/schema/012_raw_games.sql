-- raw_games: one row per Lichess game id (any variant), as it last arrived: the export JSON
-- (pgnInJson=true) from the API, or the game's PGN text (a JSON string) from a Lichess open-database
-- dump (antichess-td backfill). A game between two registered players arrives in both players'
-- streams; it is kept once. An API row replaces a dump row, never the other way round.
CREATE TABLE IF NOT EXISTS raw_games (
    game_id    VARCHAR PRIMARY KEY,
    payload    JSON NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    source     VARCHAR DEFAULT 'api'      -- 'api' (the games export) | 'dump' (lichess_db_antichess_rated_YYYY-MM.pgn.zst)
);
