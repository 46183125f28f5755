-- games_to_verify: every game listed in scored_match_games (counted or not: each candidate's
-- PGN is read against its JSON) that has no verdict yet, with the columns pipeline/domain/verify.py reads.
-- The ids come first and the games are joined to them: with none to verify (most nights: match
-- games are verified as they arrive), the games and their PGNs are not scanned at all.
WITH todo AS (
    SELECT game_id FROM scored_match_games
    EXCEPT
    SELECT game_id FROM game_verdicts
)
SELECT g.game_id, g.white_name, g.black_name, g.variant, g.clock_initial_s, g.clock_increment_s,
       g.status, g.winner, g.created_at, g.moves, g.pgn
FROM lichess_games g
JOIN todo USING (game_id)
ORDER BY g.game_id
