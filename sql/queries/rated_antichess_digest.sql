-- rated_antichess_digest: one row: how many rated antichess games of the players in $1 (a list of
-- user ids; $5 the same list's times from which each is no longer tracked, NULL: never: a game
-- counts when it ends before that time for one of its players, as pipeline/domain/rd.py rates
-- it) sort at or before the key ($2, $3, $4) in rating order (last_move_at, created_at,
-- game_id), or all of them when $2 is NULL, and a digest of their rows (every column
-- pipeline/domain/rd.py reads: the XOR of each row's hash, so the same set of rows gives the same
-- digest and a changed, missing or extra row another); and how many sort after the key (the rows
-- queries/rated_antichess_games_of would read: none means the estimates are up to date).
-- Computed where the rows are, so a night reads only the games after the cursor
-- (pipeline/stages/ratings.py).
WITH tracked AS (  -- one row a player (a name listed twice counts as its later time, or never)
    SELECT user_id, bool_or(until IS NULL) AS always, max(until) AS until
    FROM (SELECT unnest($1::VARCHAR[]) AS user_id, unnest($5::TIMESTAMPTZ[]) AS until)
    GROUP BY user_id
),
rated AS (
    SELECT g.*,
           ($2::TIMESTAMPTZ IS NULL
            OR g.last_move_at < $2::TIMESTAMPTZ
            OR (g.last_move_at = $2::TIMESTAMPTZ AND (g.created_at < $3::TIMESTAMPTZ
                                                      OR (g.created_at = $3::TIMESTAMPTZ AND g.game_id <= $4::VARCHAR))))
               AS upto
    FROM lichess_games g
    -- each side a left hash join on the small tracked list (two correlated EXISTS, one a side,
    -- took 4-8x as long on a 64-team season's 100,000 games)
    LEFT JOIN tracked w ON w.user_id = g.white_id
    LEFT JOIN tracked b ON b.user_id = g.black_id
    WHERE g.rated AND g.variant = 'antichess'
      AND ((w.always OR g.last_move_at < w.until) OR (b.always OR g.last_move_at < b.until))
)
SELECT count(*) FILTER (WHERE upto) AS games,
       CAST(coalesce(bit_xor(hash(game_id, created_at, last_move_at, white_id, black_id, white_rating, black_rating,
                                  white_rating_diff, black_rating_diff, winner, status)) FILTER (WHERE upto),
                     0) AS VARCHAR) AS digest,
       count(*) FILTER (WHERE NOT upto) AS later
FROM rated
