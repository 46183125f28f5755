-- rounds_of_stage: the rounds of stage $1 that have a scored team match.
SELECT DISTINCT round FROM scored_team_matches WHERE stage = $1 ORDER BY round
