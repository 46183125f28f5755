-- team_matches_of_stage: every team match of stage $1, by round and pairing.
SELECT round, team_a, team_b, outcome, winner FROM scored_team_matches WHERE stage = $1 ORDER BY round, team_a
