-- rating_events: one row per (player, moment the stored data shows a new antichess rating):
-- every post-game rating (source 'games'), and the end-of-UTC-day rating of Lichess's rating
-- history (source 'rating_history', at the day's last microsecond) for days on which no game of
-- the player is stored (before lichess.history_since, or not fetched). "The rating at time t" is
-- the last event before t; intraday ratings come from games, the daily history only fills gaps
-- (TEAM-CAP resolution, ACWC-SEED-1). Two games of a player can end in the same second: each is
-- its own event (game_id tells them apart; NULL for the daily history's).
-- key: user_id, rated_at, game_id
CREATE OR REPLACE VIEW rating_events AS
SELECT user_id, played_at AS rated_at, rating_after AS rating, 'games' AS source, game_id
FROM post_game_ratings
UNION ALL
SELECT p.user_id, timezone('UTC', p.day + INTERVAL 1 DAY) - INTERVAL 1 MICROSECOND, p.rating, 'rating_history', NULL
FROM lichess_rating_points p
WHERE NOT EXISTS (SELECT 1 FROM post_game_ratings g
                  WHERE g.user_id = p.user_id AND CAST(timezone('UTC', g.played_at) AS DATE) = p.day);
