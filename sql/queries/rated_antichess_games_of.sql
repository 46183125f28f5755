-- rated_antichess_games_of: one row per rated antichess game of any player in $1 (a list of
-- user ids) that ends before the player's time in $5 (the same list's untracking times; NULL:
-- never), so every game pipeline/domain/rd.py rates and no other, with the columns pipeline/domain/rd.py reads to reconstruct RD (TEAM-CAP-5), oldest
-- first in rating order (last_move_at, created_at, game_id); only those after the key
-- ($2, $3, $4) in that order, or all of them when $2 is NULL.
WITH tracked AS (  -- one row a player (a name listed twice counts as its later time, or never)
    SELECT user_id, bool_or(until IS NULL) AS always, max(until) AS until
    FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until)
    GROUP BY user_id
)
SELECT g.game_id, g.created_at, g.last_move_at, g.white_id, g.black_id, g.white_rating, g.black_rating,
       g.white_rating_diff, g.black_rating_diff, g.winner, g.status
FROM lichess_games g
-- each side a left hash join on the small tracked list (two correlated EXISTS, one a side,
-- took 4-8x as long on a 64-team season's 100,000 games)
LEFT JOIN tracked w ON w.user_id = g.white_id
LEFT JOIN tracked b ON b.user_id = g.black_id
WHERE g.rated AND g.variant = 'antichess'
  AND ((w.always OR g.last_move_at < w.until) OR (b.always OR g.last_move_at < b.until))
  AND ($2::TIMESTAMPTZ IS NULL
       OR g.last_move_at > $2::TIMESTAMPTZ
       OR (g.last_move_at = $2::TIMESTAMPTZ AND (g.created_at > $3::TIMESTAMPTZ
                                                 OR (g.created_at = $3::TIMESTAMPTZ AND g.game_id > $4::VARCHAR))))
ORDER BY g.last_move_at, g.created_at, g.game_id
