-- Migration: the seeding rating (ACWC-SEED-1, players.csv seed_rating) that breaks ACWC-Q-3 ties last.
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS seed_rating INTEGER;
