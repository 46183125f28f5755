-- match_games: one row per game between paired players in or near the round window (contract 4),
-- counted or not, with the reason (TEAM-FMT-3, TEAM-SCORE-1).
CREATE OR REPLACE VIEW match_games AS
SELECT
    stage, round, board, player_a, player_b, game_id, part, counted, reason,
    entrant_a, entrant_b, created_at, last_move_at, time_control, a_points, b_points,
    'https://lichess.org/' || game_id AS url
FROM scored_match_games;
