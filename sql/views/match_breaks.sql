-- match_breaks: one row per (board match with too many or too long breaks, player of it), for
-- TEAM-CONDUCT-1 and ACWC-CONDUCT-1 (evidence for the TDs). From match_gaps: a gap between two
-- consecutive games of a board match longer than audit_params.break_min_minutes (2) is a break;
-- a board match is flagged (warning) for a break longer than break_max_minutes (10) or for more
-- than one break. The data cannot say who called a break, so both players get the row (who, the
-- team, the opponent, as shown; who_id, who_team_id, opponent_id the ids); `listed` names every
-- break with its games.
-- key: stage, round, board, entrant_a_id, who_id
CREATE OR REPLACE VIEW match_breaks AS
WITH breaks AS (
    SELECT g.*, a.break_max_minutes, a.break_min_minutes
    FROM match_gaps g CROSS JOIN audit_params a
    WHERE g.gap_s > a.break_min_minutes * 60
),
per_match AS (
    SELECT stage, round, board, entrant_a, entrant_b, player_a, player_b,
           entrant_a_id, entrant_b_id, player_a_id, player_b_id,
           count(*) AS n_breaks,
           max(gap_s) AS longest_s,
           any_value(break_max_minutes) AS max_min,
           any_value(break_min_minutes) AS min_min,
           string_agg(format('{} min between {} and {} ({} UTC)', printf('%.1f', gap_s / 60), prev_game_id, next_game_id,
                             strftime(timezone('UTC', prev_last_move_at), '%Y-%m-%d %H:%M')), '; ' ORDER BY next_created_at) AS listed,
           arg_max(next_game_id, gap_s) AS longest_game
    FROM breaks
    GROUP BY stage, round, board, entrant_a, entrant_b, player_a, player_b,
             entrant_a_id, entrant_b_id, player_a_id, player_b_id
),
flagged AS (
    SELECT *, 'warning' AS severity
    FROM per_match
    WHERE longest_s > max_min * 60 OR n_breaks > 1
),
sides AS (
    SELECT f.*, f.player_a AS who, f.entrant_a AS who_team, f.player_b AS opponent,
           f.player_a_id AS who_id, f.entrant_a_id AS who_team_id, f.player_b_id AS opponent_id
    FROM flagged f
    UNION ALL
    SELECT f.*, f.player_b, f.entrant_b, f.player_a, f.player_b_id, f.entrant_b_id, f.player_a_id FROM flagged f
)
SELECT * FROM sides
