-- 011: raw_games.source, where the raw record came from: 'api' (the games export's JSON, every row
-- written before) or 'dump' (a game's PGN text from a Lichess open-database dump, antichess-td backfill).
-- Needed by databases written before commit 02c9a60's successor (the backfill from the open database).
ALTER TABLE raw_games ADD COLUMN IF NOT EXISTS source VARCHAR DEFAULT 'api';
