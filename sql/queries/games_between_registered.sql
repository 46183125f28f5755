-- games_between_registered: one row per game whose two players are both registered (teams.csv /
-- players.csv, or named as a replacement in overrides.csv): the only games that can belong to a
-- pairing, with the columns linking reads.
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
ORDER BY g.created_at, g.game_id
