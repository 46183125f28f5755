-- round_games_fingerprint: one row per round of the boards in _boards(round, board, entrant_a,
-- p1, p2, lo, hi) that has games: a digest of every stored game between the board's two players
-- (p1 < p2) created in [lo, hi) (the round window widened by the stage's margin), with every
-- column linking reads (pipeline/domain/linking.py GAME_COLUMNS). Equal digests: the round's games are
-- unchanged since it was scored. The digest is the sum of each row's hash (as table checksums
-- are): the same rows in any order give the same sum, and a changed, missing or extra row
-- another; it costs a quarter of an md5 over the rows joined into one ordered string.
SELECT b.round,
       CAST(sum(hash(b.board, b.entrant_a, g.game_id, g.created_at, g.last_move_at, g.white_id, g.black_id,
                     g.rated, g.variant, g.clock_initial_s, g.clock_increment_s, g.status, g.winner)::HUGEINT)
            AS VARCHAR) AS games
FROM _boards b
JOIN lichess_games g
  ON least(g.white_id, g.black_id) = b.p1 AND greatest(g.white_id, g.black_id) = b.p2
 AND g.created_at >= b.lo AND g.created_at < b.hi
GROUP BY b.round
