-- post_game_ratings: one row per (rated antichess game that changed ratings, player in it): the
-- player's Lichess rating before the game and after it (rating + ratingDiff), at the game's last
-- move (Lichess rates a game when it ends). The base of the eligibility counts (TEAM-ELIG-2/3,
-- ACWC-ELIG-2), the cap crossings (TEAM-CAP-1..6) and the seeding rating (ACWC-SEED-1).
-- key: game_id, user_id
CREATE OR REPLACE VIEW post_game_ratings AS
SELECT game_id, white_id AS user_id, 'white' AS color, created_at, last_move_at AS played_at,
       white_rating AS rating_before, white_rating + white_rating_diff AS rating_after, status,
       coalesce(winner = 'black', FALSE) AS lost
FROM lichess_games
WHERE variant = 'antichess' AND rated AND white_id IS NOT NULL AND white_rating_diff IS NOT NULL
UNION ALL
SELECT game_id, black_id, 'black', created_at, last_move_at,
       black_rating, black_rating + black_rating_diff, status,
       coalesce(winner = 'white', FALSE)
FROM lichess_games
WHERE variant = 'antichess' AND rated AND black_id IS NOT NULL AND black_rating_diff IS NOT NULL;
