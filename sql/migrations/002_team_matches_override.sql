-- 002: scored_team_matches.override, the TD ruling (armageddon, ARM-1) that decided a team match,
-- with its reason; '' when the boards decided it.
-- Needed by databases written before commit 9011b86 (TD rulings from overrides.csv).
ALTER TABLE scored_team_matches ADD COLUMN IF NOT EXISTS override VARCHAR DEFAULT '';
