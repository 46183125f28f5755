-- Migration: ACWC-Q-3's cumulative score (the running score after each round, summed).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS cumulative DOUBLE DEFAULT 0;
