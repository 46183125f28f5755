-- Audit team_conduct_breaks. Rules: TEAM-CONDUCT-1.
-- Invariant (evidence for the TDs): each player may call one break a match, of at most
-- break_max_minutes (10); otherwise rematches start at once. From match_breaks (over match_gaps): a gap between two
-- consecutive games of a board match longer than break_min_minutes (2) is a break. The data
-- cannot say who called it, so both players of the board get the row: a warning for a break
-- longer than break_max_minutes, or for more than one break in one board match (two are fine
-- only if each player called one: the TD finds out).
-- Grain: one row per (board match with such breaks, player of it).
SELECT 'TEAM-CONDUCT-1' AS rule_id,
       s.severity,
       coalesce(u.username, s.who) AS subject,
       s.who_team AS team,
       format('{} round {} board {} against {}: {} break(s) over {} minutes: {}; one break a player, at most {} minutes (evidence: who called each break is for the TD to find out)',
              s.stage, s.round, s.board, coalesce(o.username, s.opponent), s.n_breaks, printf('%g', s.min_min),
              s.listed, printf('%g', s.max_min)) AS detail,
       'https://lichess.org/' || s.longest_game AS evidence_url
FROM match_breaks s
CROSS JOIN audit_params a
LEFT JOIN lichess_users u ON u.user_id = s.who
LEFT JOIN lichess_users o ON o.user_id = s.opponent
WHERE a.tournament_kind = 'team'
