-- 005: scored_standings.seed_rating, the seeding rating (ACWC-SEED-1, players.csv seed_rating)
-- that breaks ACWC-Q-3 ties last.
-- Needed by databases written before commit 167f602 (ACWC-Q-3 tiebreaks).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS seed_rating INTEGER;
