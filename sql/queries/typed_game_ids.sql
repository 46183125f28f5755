-- typed_game_ids: the ids among $1 (a list) that lichess_games already holds (a backfill inserts
-- the others without looking each one up).
SELECT game_id FROM lichess_games WHERE game_id IN (SELECT unnest($1::VARCHAR[]))
