-- Migration: the TD ruling (armageddon, ARM-1) that decided a team match, with its reason.
ALTER TABLE scored_team_matches ADD COLUMN IF NOT EXISTS override VARCHAR DEFAULT '';
