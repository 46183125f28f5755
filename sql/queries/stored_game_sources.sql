-- stored_game_sources: one row per id among $1 (a list) that raw_games already holds, with where
-- its raw record came from ('api' | 'dump'): a backfill never replaces an API row.
SELECT game_id, source FROM raw_games WHERE game_id IN (SELECT unnest($1::VARCHAR[]))
