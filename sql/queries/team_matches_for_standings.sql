-- team_matches_for_standings: every scored team match of stage $1 with all the columns of
-- pipeline.domain.scoring.TeamMatch (the rounds not rescored tonight enter the standings from here).
SELECT stage, round, team_a, team_b, a_points, b_points, max_points, winning_points, games_played, games_due,
       decided_by_game_id, outcome, winner, override, tiebreak
FROM scored_team_matches
WHERE stage = $1
