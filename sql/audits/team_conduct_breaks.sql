-- Audit team_conduct_breaks. Rules: TEAM-CONDUCT-1.
-- Invariant (evidence for the TDs): each player may call one break a match, of at most
-- break_max_minutes (10); otherwise rematches start at once. From match_gaps: a gap between two
-- consecutive games of a board match longer than break_min_minutes (2) is a break. The data
-- cannot say who called it, so both players of the board get the row: a warning for a break
-- longer than break_max_minutes, or for more than one break in one board match (two are fine
-- only if each player called one: the TD finds out).
-- Grain: one row per (board match with such breaks, player of it).
WITH breaks AS (
    SELECT g.*, a.break_max_minutes, a.break_min_minutes
    FROM match_gaps g CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team' AND g.gap_s > a.break_min_minutes * 60
),
per_match AS (
    SELECT stage, round, board, entrant_a, entrant_b, player_a, player_b,
           count(*) AS n_breaks,
           max(gap_s) AS longest_s,
           any_value(break_max_minutes) AS max_min,
           any_value(break_min_minutes) AS min_min,
           string_agg(format('{} min between {} and {} ({} UTC)', printf('%.1f', gap_s / 60), prev_game_id, next_game_id,
                             strftime(timezone('UTC', prev_last_move_at), '%Y-%m-%d %H:%M')), '; ' ORDER BY next_created_at) AS listed,
           arg_max(next_game_id, gap_s) AS longest_game
    FROM breaks
    GROUP BY stage, round, board, entrant_a, entrant_b, player_a, player_b
),
flagged AS (
    SELECT *, 'warning' AS severity
    FROM per_match
    WHERE longest_s > max_min * 60 OR n_breaks > 1
),
sides AS (
    SELECT f.*, f.player_a AS who, f.entrant_a AS who_team, f.player_b AS opponent FROM flagged f
    UNION ALL
    SELECT f.*, f.player_b, f.entrant_b, f.player_a FROM flagged f
)
SELECT 'TEAM-CONDUCT-1' AS rule_id,
       s.severity,
       coalesce(u.username, s.who) AS subject,
       s.who_team AS team,
       format('{} round {} board {} against {}: {} break(s) over {} minutes: {}; one break a player, at most {} minutes (evidence: who called each break is for the TD to find out)',
              s.stage, s.round, s.board, coalesce(o.username, s.opponent), s.n_breaks, printf('%g', s.min_min),
              s.listed, printf('%g', s.max_min)) AS detail,
       'https://lichess.org/' || s.longest_game AS evidence_url
FROM sides s
LEFT JOIN lichess_users u ON u.user_id = s.who
LEFT JOIN lichess_users o ON o.user_id = s.opponent
