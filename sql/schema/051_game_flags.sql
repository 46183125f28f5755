-- game_flags: one row per stored game (lichess_games) whose PGN [White]/[Black] tags name other
-- players than its JSON, found at ingest from the PGN's headers alone (no replay). The game is
-- stored and linked as Lichess's JSON reports it; the flag puts it in the `rejected` view for the
-- TD (who may exclude it with an override). Written in the same transaction as the game.
CREATE TABLE IF NOT EXISTS game_flags (
    game_id    VARCHAR PRIMARY KEY,
    reason     VARCHAR NOT NULL,
    flagged_at TIMESTAMPTZ NOT NULL
);
