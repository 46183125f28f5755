-- 001: scored_board_results.override, the TD ruling (forfeit, zero_draw, disqualify) that set a
-- board result with its reason; '' when the games decided it.
-- Needed by databases written before commit 9011b86 (TD rulings from overrides.csv).
ALTER TABLE scored_board_results ADD COLUMN IF NOT EXISTS override VARCHAR DEFAULT '';
