-- board_results_of_stage: every board result row of stage $1 (parts and totals), names as shown
-- (board_results view) with their ids, and the links of the board's counted games, ordered for
-- the results export and the round posts.
SELECT b.stage, b.round, b.board, b.team_a, b.team_b, b.player_a, b.player_b, b.part, b.games_played,
       b.games_due, b.a_points, b.b_points, b.override,
       (SELECT string_agg('https://lichess.org/' || m.game_id, ' ' ORDER BY m.created_at)
          FROM scored_match_games m
         WHERE m.stage = b.stage AND m.round = b.round AND m.board = b.board AND m.entrant_a = b.team_a_id
           AND m.counted AND b.part = 'total') AS game_links,
       b.team_a_id, b.team_b_id, b.player_a_id, b.player_b_id
FROM board_results b
WHERE b.stage = $1
ORDER BY b.round, b.team_a_id, b.board, b.part
