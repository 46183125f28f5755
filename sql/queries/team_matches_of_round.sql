-- team_matches_of_round: the team matches of stage $1, round $2, in pairing order.
SELECT team_a, team_b, a_points, b_points, max_points, winning_points, outcome, winner, override, tiebreak
FROM scored_team_matches
WHERE stage = $1 AND round = $2
ORDER BY team_a
