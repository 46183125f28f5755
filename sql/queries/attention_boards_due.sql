-- attention_boards_due: one row per part of a board match with games still to play (games_played
-- < games_due) whose round window ends after $1 and no later than $2 (TEAM-FMT-3), with no TD
-- ruling on the part or the board. With the match's points and winning total (ACWC-Q-2: the
-- players may stop once one reaches it). Names as shown.
SELECT r.stage, r.round, r.board, r.team_a AS team_a_id, r.team_b AS team_b_id,
       coalesce(na.entrant, r.team_a) AS team_a, coalesce(nb.entrant, r.team_b) AS team_b,
       coalesce(pa.username, r.player_a) AS player_a, coalesce(pb.username, r.player_b) AS player_b,
       r.part, r.games_played, r.games_due, p.window_end,
       t.a_points AS match_a_points, t.b_points AS match_b_points, t.winning_points
FROM scored_board_results r
JOIN scored_board_results tot
  ON tot.stage = r.stage AND tot.round = r.round AND tot.board = r.board AND tot.team_a = r.team_a AND tot.part = 'total'
JOIN td_pairings p ON p.stage = r.stage AND p.round = r.round AND p.entrant_a = r.team_a
LEFT JOIN scored_team_matches t ON t.stage = r.stage AND t.round = r.round AND t.team_a = r.team_a
LEFT JOIN display_names pa ON pa.user_id = r.player_a
LEFT JOIN display_names pb ON pb.user_id = r.player_b
LEFT JOIN entrant_names na ON na.entrant_id = r.team_a
LEFT JOIN entrant_names nb ON nb.entrant_id = r.team_b
WHERE r.part <> 'total' AND r.games_played < r.games_due
  AND r.override = '' AND tot.override = ''
  AND p.window_end > $1 AND p.window_end <= $2
ORDER BY r.stage, r.round, r.team_a, r.board, r.part
