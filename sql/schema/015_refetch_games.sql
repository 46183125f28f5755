-- refetch_games: one row per Lichess game id a backfill could not store as a finished game (its dump
-- record does not read, or was written `Unterminated`: still being played when the dump was cut).
-- The backfill moves the games cursors past the dump's months, so the API's streams never list such a
-- game again: the next ingest fetches these ids with POST /api/games/export/_ids and stores what comes
-- back as any API game. A row leaves the queue when its game is stored, when the API's record of it
-- cannot be typed, or when the API does not return it (deleted: its dump record stays in
-- rejected_records with the reason); a game the API still shows as being played stays queued.
-- Invariant: each game id here has its dump record in rejected_records (source 'game', record_key = game_id).
CREATE TABLE IF NOT EXISTS refetch_games (
    game_id    VARCHAR PRIMARY KEY,
    dump_file  VARCHAR NOT NULL,          -- the dump the refused record came from (lichess_db_antichess_rated_YYYY-MM.pgn.zst)
    queued_at  TIMESTAMPTZ NOT NULL
);
