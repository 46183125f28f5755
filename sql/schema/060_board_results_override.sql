-- Migration: the TD ruling (forfeit, zero_draw, disqualify) that set a board result, with its
-- reason; '' when the games decided it. Added after the first release: ALTER keeps old files working.
ALTER TABLE scored_board_results ADD COLUMN IF NOT EXISTS override VARCHAR DEFAULT '';
