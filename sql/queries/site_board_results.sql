-- site_board_results: one row per (stage, round, board match, part) of the board_results view
-- (TEAM-SCORE-1, TEAM-SCORE-2; part 'total' the board totals), names as shown, ids for links.
SELECT stage, round, board, team_a_id, team_b_id, player_a, player_b, player_a_id, player_b_id, part,
       games_played, a_points, b_points, games_due, override, is_unplayed
FROM board_results
ORDER BY stage, round, team_a_id, board, part
