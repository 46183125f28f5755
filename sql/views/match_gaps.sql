-- match_gaps: one row per pair of consecutive games of a board match (stage, round, board,
-- entrant_a), in order of creation: the time from the end of one game (its last move) to the
-- start of the next, and whether the clock (part) changed between them. Only games linked to the
-- board in its window count (not outside_window, not other variants, not games that never
-- started; the captains' TEAM-KO-1 tiebreak games are listed once, as their own match on board 0).
-- The evidence for TEAM-CONDUCT-1/2 and ACWC-CONDUCT-1.
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
SELECT stage, round, board, entrant_a, entrant_b, player_a, player_b, prev_game_id, game_id AS next_game_id,
       prev_last_move_at, created_at AS next_created_at, prev_clock, clock AS next_clock,
       prev_clock IS DISTINCT FROM clock AS part_change,
       epoch(created_at) - epoch(prev_last_move_at) AS gap_s
FROM g
WHERE prev_game_id IS NOT NULL;
