-- round_games_fingerprint: one row per round of the boards in _boards(round, board, entrant_a,
-- p1, p2, lo, hi) that has games: an md5 over every stored game between the board's two players
-- (p1 < p2) created in [lo, hi) (the round window widened by the stage's margin), with every
-- column linking reads (pipeline/domain/linking.py GAME_COLUMNS). Equal digests: the round's games are
-- unchanged since it was scored.
SELECT b.round,
       md5(string_agg(concat_ws('|', b.board, b.entrant_a, g.game_id, epoch_us(g.created_at),
                                coalesce(CAST(epoch_us(g.last_move_at) AS VARCHAR), '-'), g.white_id, g.black_id,
                                coalesce(CAST(g.rated AS VARCHAR), '-'), coalesce(g.variant, '-'),
                                coalesce(CAST(g.clock_initial_s AS VARCHAR), '-'),
                                coalesce(CAST(g.clock_increment_s AS VARCHAR), '-'), coalesce(g.status, '-'),
                                coalesce(g.winner, '-')),
                      ';' ORDER BY b.board, b.entrant_a, g.game_id)) AS games
FROM _boards b
JOIN lichess_games g
  ON least(g.white_id, g.black_id) = b.p1 AND greatest(g.white_id, g.black_id) = b.p2
 AND g.created_at >= b.lo AND g.created_at < b.hi
GROUP BY b.round
