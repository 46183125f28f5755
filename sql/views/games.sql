-- games: one row per Lichess game id of any registered player, all variants.
-- key: game_id
CREATE OR REPLACE VIEW games AS
SELECT
    game_id, created_at, last_move_at, white_id, black_id, rated, variant,
    clock_initial_s, clock_increment_s, status, winner,
    white_rating, black_rating, white_rating_diff, black_rating_diff, url,
    white_name, black_name, speed
FROM lichess_games;
