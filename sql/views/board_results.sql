-- board_results: one row per (stage, round, board match, part); part = 'total' holds the board totals.
-- override: the TD ruling that set the result, with its reason ('' when the games decided it); the
-- player it names (stored as the id, in brackets) as shown.
-- is_unplayed: no game played and no ruling once the window and its margin had passed (waits for a ruling).
-- Names as shown (entrant_names, display_names); *_id the ids the scored tables use.
-- key: stage, round, board, team_a_id, part
CREATE OR REPLACE VIEW board_results AS
SELECT b.stage, b.round, b.board, coalesce(na.entrant, b.team_a) AS team_a, coalesce(nb.entrant, b.team_b) AS team_b,
       coalesce(pa.username, b.player_a) AS player_a, coalesce(pb.username, b.player_b) AS player_b,
       b.part, b.games_played, b.a_points, b.b_points, b.games_due,
       replace(replace(b.override, concat(' (', b.player_a, '): '), concat(' (', coalesce(pa.username, b.player_a), '): ')),
               concat(' (', b.player_b, '): '), concat(' (', coalesce(pb.username, b.player_b), '): ')) AS override,
       b.is_unplayed,
       b.team_a AS team_a_id, b.team_b AS team_b_id, b.player_a AS player_a_id, b.player_b AS player_b_id
FROM scored_board_results b
LEFT JOIN entrant_names na ON na.entrant_id = b.team_a
LEFT JOIN entrant_names nb ON nb.entrant_id = b.team_b
LEFT JOIN display_names pa ON pa.user_id = b.player_a
LEFT JOIN display_names pb ON pb.user_id = b.player_b;
