-- 003: scored_team_matches.tiebreak, how a tied knockout match was decided (TEAM-KO-1: advantage
-- point, captains' 3+0 games) or what it still needs (an armageddon or replay entered by the TD).
-- Needed by databases written before commit d95beef (TEAM-KO-1 knockout ties).
ALTER TABLE scored_team_matches ADD COLUMN IF NOT EXISTS tiebreak VARCHAR DEFAULT '';
