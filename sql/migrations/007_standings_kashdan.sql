-- 007: scored_standings.kashdan, the Kashdan tiebreak (ACWC 2022-2024 books: 4 per match won,
-- 2 drawn, 1 lost, 0 unplayed).
-- Needed by databases written before commit e76e394 (byes in pairings.csv).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS kashdan DOUBLE DEFAULT 0;
