-- verified_game_ids: the ids among $1 (a list) that game_verdicts already holds (each game is verified once).
SELECT game_id FROM game_verdicts WHERE game_id IN (SELECT unnest($1::VARCHAR[]))
