-- 006: scored_standings.pool, the pool of a round-robin stage's entrant (ACWC-C-1: two pools of 6,
-- ranked apart).
-- Needed by databases written before commit a374ea6 (ACWC candidates pools).
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS pool INTEGER;
