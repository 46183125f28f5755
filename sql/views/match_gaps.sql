-- match_gaps: one row per pair of consecutive games of a board match (stage, round, board,
-- entrant_a), in order of creation: the time from the end of one game (its last move) to the
-- start of the next, and whether the clock (part) changed between them. Only games linked to the
-- board in its window count (not outside_window, not other variants, not games that never
-- started; the captains' TEAM-KO-1 tiebreak games are listed once, as their own match on board 0).
-- The evidence for TEAM-CONDUCT-1/2 and ACWC-CONDUCT-1. Names as shown (display_names,
-- entrant_names); *_id the ids the scored tables use.
-- key: stage, round, board, entrant_a_id, next_game_id
CREATE OR REPLACE VIEW match_gaps AS
WITH g AS (
    SELECT stage, round, board, entrant_a, entrant_b, player_a, player_b, game_id, created_at, last_move_at,
           coalesce(part, time_control) AS clock,
           lag(game_id) OVER w AS prev_game_id, lag(last_move_at) OVER w AS prev_last_move_at,
           lag(coalesce(part, time_control)) OVER w AS prev_clock
    FROM scored_match_games
    WHERE reason NOT IN ('outside_window', 'not_antichess', 'no_start', 'aborted')
    WINDOW w AS (PARTITION BY stage, round, board, entrant_a ORDER BY created_at, game_id)
)
SELECT g.stage, g.round, g.board, coalesce(na.entrant, g.entrant_a) AS entrant_a, coalesce(nb.entrant, g.entrant_b) AS entrant_b,
       coalesce(pa.username, g.player_a) AS player_a, coalesce(pb.username, g.player_b) AS player_b,
       g.prev_game_id, g.game_id AS next_game_id,
       g.prev_last_move_at, g.created_at AS next_created_at, g.prev_clock, g.clock AS next_clock,
       g.prev_clock IS DISTINCT FROM g.clock AS part_change,
       epoch(g.created_at) - epoch(g.prev_last_move_at) AS gap_s,
       g.entrant_a AS entrant_a_id, g.entrant_b AS entrant_b_id, g.player_a AS player_a_id, g.player_b AS player_b_id
FROM g
LEFT JOIN display_names pa ON pa.user_id = g.player_a
LEFT JOIN display_names pb ON pb.user_id = g.player_b
LEFT JOIN entrant_names na ON na.entrant_id = g.entrant_a
LEFT JOIN entrant_names nb ON nb.entrant_id = g.entrant_b
WHERE g.prev_game_id IS NOT NULL;
