-- 008: scored_standings.byes, the number of byes an entrant had (pairings.csv rows with an empty b)
-- up to the round.
-- Needed by databases written before commit e76e394 (byes in pairings.csv).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS byes INTEGER DEFAULT 0;
