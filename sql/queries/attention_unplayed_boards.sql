-- attention_unplayed_boards: one row per board that waits for a TD ruling (TEAM-SCORE-4, TEAM-DQ-1,
-- ACWC-CONDUCT-1): no game played and no ruling once its round window and the stage's
-- window_margin_days had passed (scored_board_results.is_unplayed). Names as shown, ids beside.
SELECT r.stage, r.round, r.board, r.team_a AS team_a_id, r.team_b AS team_b_id,
       coalesce(na.entrant, r.team_a) AS team_a, coalesce(nb.entrant, r.team_b) AS team_b,
       coalesce(pa.username, r.player_a) AS player_a, coalesce(pb.username, r.player_b) AS player_b,
       p.window_end
FROM scored_board_results r
LEFT JOIN td_pairings p ON p.stage = r.stage AND p.round = r.round AND p.entrant_a = r.team_a
LEFT JOIN display_names pa ON pa.user_id = r.player_a
LEFT JOIN display_names pb ON pb.user_id = r.player_b
LEFT JOIN entrant_names na ON na.entrant_id = r.team_a
LEFT JOIN entrant_names nb ON nb.entrant_id = r.team_b
WHERE r.part = 'total' AND r.is_unplayed
ORDER BY r.stage, r.round, r.team_a, r.board
