-- match_games: one row per game between paired players in or near the round window,
-- counted or not, with the reason (TEAM-FMT-3, TEAM-SCORE-1) and the game's verification verdict
-- (PGN vs JSON, final position vs recorded result; each listed game is verified once).
-- Names as shown (display_names, entrant_names); *_id the ids the scored tables use.
-- key: stage, round, board, entrant_a_id, game_id
CREATE OR REPLACE VIEW match_games AS
SELECT
    m.stage, m.round, m.board, coalesce(pa.username, m.player_a) AS player_a, coalesce(pb.username, m.player_b) AS player_b,
    m.game_id, m.part, m.counted, m.reason,
    coalesce(na.entrant, m.entrant_a) AS entrant_a, coalesce(nb.entrant, m.entrant_b) AS entrant_b,
    m.created_at, m.last_move_at, m.time_control, m.a_points, m.b_points,
    'https://lichess.org/' || m.game_id AS url,
    v.verdict, v.detail AS verdict_detail,
    m.player_a AS player_a_id, m.player_b AS player_b_id, m.entrant_a AS entrant_a_id, m.entrant_b AS entrant_b_id
FROM scored_match_games m
LEFT JOIN game_verdicts v USING (game_id)
LEFT JOIN display_names pa ON pa.user_id = m.player_a
LEFT JOIN display_names pb ON pb.user_id = m.player_b
LEFT JOIN entrant_names na ON na.entrant_id = m.entrant_a
LEFT JOIN entrant_names nb ON nb.entrant_id = m.entrant_b;
