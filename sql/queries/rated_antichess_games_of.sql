-- rated_antichess_games_of: one row per rated antichess game of any player in $1 (a list of
-- user ids) that ends before the player's time in $5 (the same list's untracking times; NULL:
-- never), so every game pipeline/domain/rd.py rates and no other, with the columns pipeline/domain/rd.py reads to reconstruct RD (TEAM-CAP-5), oldest
-- first in rating order (last_move_at, created_at, game_id); only those after the key
-- ($2, $3, $4) in that order, or all of them when $2 is NULL.
SELECT g.game_id, g.created_at, g.last_move_at, g.white_id, g.black_id, g.white_rating, g.black_rating,
       g.white_rating_diff, g.black_rating_diff, g.winner, g.status
FROM lichess_games g
WHERE g.rated AND g.variant = 'antichess'
  -- one EXISTS per side: each an equality join (one EXISTS over IN (white_id, black_id) took 2.5x as long)
  AND (EXISTS (SELECT 1 FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until) t
               WHERE t.user_id = g.white_id AND (t.until IS NULL OR g.last_move_at < t.until))
       OR EXISTS (SELECT 1 FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until) t
                  WHERE t.user_id = g.black_id AND (t.until IS NULL OR g.last_move_at < t.until)))
  AND ($2::TIMESTAMPTZ IS NULL
       OR g.last_move_at > $2::TIMESTAMPTZ
       OR (g.last_move_at = $2::TIMESTAMPTZ AND (g.created_at > $3::TIMESTAMPTZ
                                                 OR (g.created_at = $3::TIMESTAMPTZ AND g.game_id > $4::VARCHAR))))
ORDER BY g.last_move_at, g.created_at, g.game_id
