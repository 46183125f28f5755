-- rated_antichess_digest: one row: how many rated antichess games of the players in $1 (a list of
-- user ids; $5 the same list's times from which each is no longer tracked, NULL: never: a game
-- counts when it ends before that time for one of its players, as pipeline/domain/rd.py rates
-- it) sort at or before the key ($2, $3, $4) in rating order (last_move_at, created_at,
-- game_id), or all of them when $2 is NULL, and a digest of their rows (every column
-- pipeline/domain/rd.py reads: the XOR of each row's hash, so the same set of rows gives the same
-- digest and a changed, missing or extra row another). Computed where the rows are, so a night
-- reads only the games after the cursor (pipeline/stages/ratings.py).
SELECT count(*) AS games,
       CAST(coalesce(bit_xor(hash(g.game_id, g.created_at, g.last_move_at, g.white_id, g.black_id, g.white_rating,
                                  g.black_rating, g.white_rating_diff, g.black_rating_diff, g.winner, g.status)),
                     0) AS VARCHAR) AS digest
FROM lichess_games g
WHERE g.rated AND g.variant = 'antichess'
  -- one EXISTS per side: each an equality join (one EXISTS over IN (white_id, black_id) took 2.5x as long)
  AND (EXISTS (SELECT 1 FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until) t
               WHERE t.user_id = g.white_id AND (t.until IS NULL OR g.last_move_at < t.until))
       OR EXISTS (SELECT 1 FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until) t
                  WHERE t.user_id = g.black_id AND (t.until IS NULL OR g.last_move_at < t.until)))
  AND ($2::TIMESTAMPTZ IS NULL
       OR g.last_move_at < $2::TIMESTAMPTZ
       OR (g.last_move_at = $2::TIMESTAMPTZ AND (g.created_at < $3::TIMESTAMPTZ
                                                 OR (g.created_at = $3::TIMESTAMPTZ AND g.game_id <= $4::VARCHAR))))
