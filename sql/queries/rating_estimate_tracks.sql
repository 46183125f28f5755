-- rating_estimate_tracks: the RD estimator's saved state, one row per tracked player.
SELECT user_id, lo, hi, rd, sd, rated_at, w_sum, wy_sum FROM rating_estimate_tracks ORDER BY user_id
