-- rating_points: one row per (user id, UTC day) with the end-of-day antichess rating.
-- key: user_id, day
CREATE OR REPLACE VIEW rating_points AS
SELECT user_id, day, rating FROM lichess_rating_points;
