-- attention_near_misses: one row per game between two paired players that did not count only
-- because it was played outside the round window (TEAM-FMT-3), at the clock of one of the match's
-- parts, on a board (no TD ruling on it) with games of that part still missing: an include_game
-- ruling would count it (in creation order, up to the games missing). Names as shown.
SELECT m.stage, m.round, m.board, m.entrant_a AS team_a_id, m.entrant_b AS team_b_id,
       coalesce(na.entrant, m.entrant_a) AS team_a, coalesce(nb.entrant, m.entrant_b) AS team_b,
       coalesce(pa.username, m.player_a) AS player_a, coalesce(pb.username, m.player_b) AS player_b,
       m.game_id, m.part, m.created_at, r.games_due - r.games_played AS missing, p.window_start, p.window_end
FROM scored_match_games m
JOIN scored_board_results r
  ON r.stage = m.stage AND r.round = m.round AND r.board = m.board AND r.team_a = m.entrant_a AND r.part = m.part
JOIN scored_board_results tot
  ON tot.stage = m.stage AND tot.round = m.round AND tot.board = m.board AND tot.team_a = m.entrant_a AND tot.part = 'total'
JOIN td_pairings p ON p.stage = m.stage AND p.round = m.round AND p.entrant_a = m.entrant_a
LEFT JOIN display_names pa ON pa.user_id = m.player_a
LEFT JOIN display_names pb ON pb.user_id = m.player_b
LEFT JOIN entrant_names na ON na.entrant_id = m.entrant_a
LEFT JOIN entrant_names nb ON nb.entrant_id = m.entrant_b
WHERE m.reason = 'outside_window' AND m.part IS NOT NULL AND r.games_played < r.games_due
  AND r.override = '' AND tot.override = ''
ORDER BY m.stage, m.round, m.entrant_a, m.board, m.created_at, m.game_id
