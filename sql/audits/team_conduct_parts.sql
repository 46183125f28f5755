-- Audit team_conduct_parts. Rules: TEAM-CONDUCT-2.
-- Invariant (evidence only): at most part_gap_max_minutes (1) pass between the last game of one
-- part of a board match and the first game of the next; a longer gap counts as the late
-- player's break, and the data cannot say who was late.
-- Grain: one warning per (part change with a longer gap, player of the board).
WITH late AS (
    SELECT g.*, a.part_gap_max_minutes
    FROM match_gaps g CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team' AND g.part_change AND g.gap_s > a.part_gap_max_minutes * 60
),
sides AS (
    SELECT l.*, l.player_a_id AS who, l.entrant_a AS who_team, l.player_b_id AS opponent FROM late l
    UNION ALL
    SELECT l.*, l.player_b_id, l.entrant_b, l.player_a_id FROM late l
)
SELECT 'TEAM-CONDUCT-2' AS rule_id,
       'warning' AS severity,
       coalesce(u.username, s.who) AS subject,
       s.who_team AS team,
       format('{} round {} board {} against {}: {} min between the {} part (last game {}) and the {} part (first game {}) at {} UTC; at most {} minute(s), else it is the late player''s break',
              s.stage, s.round, s.board, coalesce(o.username, s.opponent), printf('%.1f', s.gap_s / 60), s.prev_clock, s.prev_game_id,
              s.next_clock, s.next_game_id, strftime(timezone('UTC', s.prev_last_move_at), '%Y-%m-%d %H:%M'),
              printf('%g', s.part_gap_max_minutes)) AS detail,
       'https://lichess.org/' || s.next_game_id AS evidence_url
FROM sides s
LEFT JOIN lichess_users u ON u.user_id = s.who
LEFT JOIN lichess_users o ON o.user_id = s.opponent
