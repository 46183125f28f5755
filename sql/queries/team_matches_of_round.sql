-- team_matches_of_round: the team matches of stage $1, round $2, in pairing order, names as shown
-- (team_matches view) with their ids.
SELECT team_a, team_b, a_points, b_points, max_points, winning_points, outcome, winner, override, tiebreak,
       team_a_id, team_b_id
FROM team_matches
WHERE stage = $1 AND round = $2
ORDER BY team_a_id
