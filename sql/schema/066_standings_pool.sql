-- Migration: the pool of a round-robin stage's entrant (ACWC-C-1: two pools of 6, ranked apart).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS pool INTEGER;
