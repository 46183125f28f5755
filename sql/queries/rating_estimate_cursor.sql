-- rating_estimate_cursor: what rating_estimates covers (0 or 1 row; see sql/schema/082_rating_estimate_cursor.sql).
SELECT settings, games, last_move_at, created_at, game_id, digest FROM rating_estimate_cursor
