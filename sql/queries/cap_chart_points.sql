-- cap_chart_points: one row per rating event of a last-board player since cap_since
-- (cap_ratings), in time order: what its cap chart draws (TEAM-CAP-1..5).
SELECT user_id, rated_at, rating, rd_est, crossing FROM cap_ratings ORDER BY user_id, rated_at
