-- unplayed_matches: one row per match (stage, round, team a) with at least one unplayed board: no
-- game played and no TD ruling once the round window and the stage's window_margin_days had
-- passed (TEAM-SCORE-4's 0-0 draw is a TD ruling, never a default). outcome 'unplayed': no points,
-- no match points and not a match played until the TD rules; 'a' / 'b': a side had already reached
-- the winning total with the games played (TEAM-SCORE-3), the result stands and only the boards'
-- points wait. team_a/team_b/winner as in team_matches: names as shown (entrant_names: in
-- individual events the players' display names), the ids in team_a_id/team_b_id/winner_id;
-- name_a/name_b the same names, and boards the players' display names (display_names).
-- key: stage, round, team_a_id
CREATE OR REPLACE VIEW unplayed_matches AS
WITH b AS (
    SELECT r.stage, r.round, r.team_a,
           count(*) AS unplayed_boards,
           string_agg(format('board {} ({} v {})', r.board, coalesce(pa.username, r.player_a),
                             coalesce(pb.username, r.player_b)), ', ' ORDER BY r.board) AS boards
    FROM scored_board_results r
    LEFT JOIN display_names pa ON pa.user_id = r.player_a
    LEFT JOIN display_names pb ON pb.user_id = r.player_b
    WHERE r.part = 'total' AND r.is_unplayed
    GROUP BY r.stage, r.round, r.team_a
)
SELECT t.stage, t.round, coalesce(na.entrant, t.team_a) AS team_a, coalesce(nb.entrant, t.team_b) AS team_b,
       coalesce(na.entrant, t.team_a) AS name_a, coalesce(nb.entrant, t.team_b) AS name_b,
       t.outcome,
       CASE t.winner WHEN t.team_a THEN coalesce(na.entrant, t.team_a) WHEN t.team_b THEN coalesce(nb.entrant, t.team_b)
                     ELSE t.winner END AS winner,
       t.games_played, t.games_due, p.window_start, p.window_end, b.unplayed_boards, b.boards,
       t.team_a AS team_a_id, t.team_b AS team_b_id, t.winner AS winner_id
FROM b
JOIN scored_team_matches t USING (stage, round, team_a)
LEFT JOIN td_pairings p ON p.stage = t.stage AND p.round = t.round AND p.entrant_a = t.team_a
LEFT JOIN entrant_names na ON na.entrant_id = t.team_a
LEFT JOIN entrant_names nb ON nb.entrant_id = t.team_b
