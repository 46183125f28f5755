-- games_parquet: one row per row of the match_games view (every game between paired players in or
-- near a window, counted or not, with the reason), with the stored game's fields the Lichess
-- open-database columns are made of (pipeline/domain/open_database.py), in the order the site
-- lists the games. match: the pairing's two entrants as shown, "A - B".
SELECT m.stage, m.round, m.entrant_a || ' - ' || m.entrant_b AS match, m.board, m.part, m.counted, m.reason,
       g.game_id, g.created_at, g.white_name, g.black_name, g.white_id, g.black_id, g.rated, g.variant,
       g.clock_initial_s, g.clock_increment_s, g.status, g.winner, g.white_rating, g.black_rating,
       g.white_rating_diff, g.black_rating_diff, g.moves, g.pgn
FROM match_games m
JOIN lichess_games g USING (game_id)
ORDER BY m.stage, m.round, m.entrant_a_id, m.board, m.created_at, m.game_id
