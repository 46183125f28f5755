-- games_to_verify: every game listed in scored_match_games (counted or not: each candidate's
-- PGN is read against its JSON) that has no verdict yet, with the columns pipeline/domain/verify.py reads.
SELECT g.game_id, g.white_name, g.black_name, g.variant, g.clock_initial_s, g.clock_increment_s,
       g.status, g.winner, g.created_at, g.moves, g.pgn
FROM lichess_games g
WHERE g.game_id IN (SELECT game_id FROM scored_match_games)
  AND g.game_id NOT IN (SELECT game_id FROM game_verdicts)
ORDER BY g.game_id
