-- 004: scored_standings.cumulative, ACWC-Q-3's cumulative score (the running score after each
-- round, summed).
-- Needed by databases written before commit 167f602 (ACWC-Q-3 tiebreaks).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS cumulative DOUBLE DEFAULT 0;
