-- stored_game_ids: the ids among $1 (a list) that raw_games already holds (to count re-downloads).
SELECT game_id FROM raw_games WHERE game_id IN (SELECT unnest($1::VARCHAR[]))
