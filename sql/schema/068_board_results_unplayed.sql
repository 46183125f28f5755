-- Migration: a board with no game played and no TD ruling once its round window and the stage's
-- window_margin_days have passed (it waits for a ruling: forfeit, zero_draw or a new window).
-- Added after the first release: ALTER keeps old files working.
ALTER TABLE scored_board_results ADD COLUMN IF NOT EXISTS is_unplayed BOOLEAN DEFAULT false;
