-- unplayed_matches: one row per match (stage, round, team a) with at least one unplayed board: no
-- game played and no TD ruling once the round window and the stage's window_margin_days had
-- passed (TEAM-SCORE-4's 0-0 draw is a TD ruling, never a default). outcome 'unplayed': no points,
-- no match points and not a match played until the TD rules; 'a' / 'b': a side had already reached
-- the winning total with the games played (TEAM-SCORE-3), the result stands and only the boards'
-- points wait. team_a/team_b as in team_matches (the players' ids in individual events);
-- name_a/name_b and boards use display names.
CREATE OR REPLACE VIEW unplayed_matches AS
WITH b AS (
    SELECT r.stage, r.round, r.team_a,
           count(*) AS unplayed_boards,
           string_agg(format('board {} ({} v {})', r.board, coalesce(pa.player_name, r.player_a),
                             coalesce(pb.player_name, r.player_b)), ', ' ORDER BY r.board) AS boards
    FROM scored_board_results r
    LEFT JOIN td_members pa ON pa.player_id = r.player_a
    LEFT JOIN td_members pb ON pb.player_id = r.player_b
    WHERE r.part = 'total' AND r.is_unplayed
    GROUP BY r.stage, r.round, r.team_a
)
SELECT t.stage, t.round, t.team_a, t.team_b,
       coalesce(ea.player_name, t.team_a) AS name_a, coalesce(eb.player_name, t.team_b) AS name_b,
       t.outcome, t.winner, t.games_played, t.games_due, p.window_start, p.window_end, b.unplayed_boards, b.boards
FROM b
JOIN scored_team_matches t USING (stage, round, team_a)
LEFT JOIN td_pairings p ON p.stage = t.stage AND p.round = t.round AND p.entrant_a = t.team_a
LEFT JOIN td_members ea ON ea.player_id = t.team_a AND ea.entrant = ea.player_id
LEFT JOIN td_members eb ON eb.player_id = t.team_b AND eb.entrant = eb.player_id
