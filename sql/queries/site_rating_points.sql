-- site_rating_points: one row per (registered player, UTC day) with the end-of-day antichess
-- rating (rating_points), for the player pages' charts (TEAM-CAP-1's line on last-board players).
SELECT r.user_id, r.day, r.rating
FROM rating_points r
WHERE r.user_id IN (SELECT player_id FROM td_members)
ORDER BY r.user_id, r.day
