-- team_matches_of_stage: every team match of stage $1, by round and pairing, with its points and
-- how a tie was decided (the bracket's roles and placings read these).
SELECT round, team_a, team_b, outcome, winner, a_points, b_points, override, tiebreak
FROM scored_team_matches WHERE stage = $1 ORDER BY round, team_a
