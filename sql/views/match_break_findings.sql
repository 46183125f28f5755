-- match_break_findings: one row per (board match with too many or too long breaks, player of it)
-- from match_breaks: the warning TEAM-CONDUCT-1 and ACWC-CONDUCT-1 share (the audits
-- team_conduct_breaks and acwc_conduct_breaks select their event kind's rows). The detail names
-- the board in a team event (an individual match has one), the opponent, every break with its
-- games, and the limits; the evidence is the game after the longest break.
-- key: evidence_url, subject
CREATE OR REPLACE VIEW match_break_findings AS
SELECT a.tournament_kind,
       s.severity,
       coalesce(u.username, s.who) AS subject,
       s.who_team,
       format('{} round {}{} against {}: {} break(s) over {} minutes: {}; one break a player, at most {} minutes (evidence: who called each break is for the TD to find out)',
              s.stage, s.round, CASE WHEN a.tournament_kind = 'team' THEN format(' board {}', s.board) ELSE '' END,
              coalesce(o.username, s.opponent), s.n_breaks, printf('%g', s.min_min),
              s.listed, printf('%g', s.max_min)) AS detail,
       'https://lichess.org/' || s.longest_game AS evidence_url
FROM match_breaks s
CROSS JOIN audit_params a
LEFT JOIN lichess_users u ON u.user_id = s.who_id
LEFT JOIN lichess_users o ON o.user_id = s.opponent_id
