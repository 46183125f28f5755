-- games_between_registered: one row per game whose two players are both registered (teams.csv /
-- players.csv, or named as a replacement in overrides.csv), created in [$1, $2): the only games
-- that can belong to a pairing of the rounds being linked (their windows widened by the stage's
-- margin lie inside the range), with the columns linking reads.
WITH registered AS (
    SELECT player_id FROM td_members
    UNION
    SELECT value FROM td_overrides WHERE action = 'replace'
)
SELECT g.game_id, g.created_at, g.last_move_at, g.white_id, g.black_id, g.rated, g.variant,
       g.clock_initial_s, g.clock_increment_s, g.status, g.winner
FROM lichess_games g
WHERE g.white_id IN (SELECT player_id FROM registered)
  AND g.black_id IN (SELECT player_id FROM registered)
  AND g.created_at >= $1 AND g.created_at < $2
ORDER BY g.created_at, g.game_id
