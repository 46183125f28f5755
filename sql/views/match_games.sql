-- match_games: one row per game between paired players in or near the round window (contract 4),
-- counted or not, with the reason (TEAM-FMT-3, TEAM-SCORE-1) and the game's verification verdict
-- (PGN vs JSON, final position vs recorded result; each listed game is verified once).
CREATE OR REPLACE VIEW match_games AS
SELECT
    m.stage, m.round, m.board, m.player_a, m.player_b, m.game_id, m.part, m.counted, m.reason,
    m.entrant_a, m.entrant_b, m.created_at, m.last_move_at, m.time_control, m.a_points, m.b_points,
    'https://lichess.org/' || m.game_id AS url,
    v.verdict, v.detail AS verdict_detail
FROM scored_match_games m
LEFT JOIN game_verdicts v USING (game_id);
