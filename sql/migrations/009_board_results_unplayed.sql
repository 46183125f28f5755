-- 009: scored_board_results.is_unplayed, a board with no game played and no TD ruling once its
-- round window and the stage's window_margin_days have passed (it waits for a ruling: forfeit,
-- zero_draw or a new window).
-- Needed by databases written before commit fe5afb6 (unplayed boards).
ALTER TABLE scored_board_results ADD COLUMN IF NOT EXISTS is_unplayed BOOLEAN DEFAULT false;
