-- Audit team_comp_titles. Rules: TEAM-COMP-2.
-- Invariant: a team has at most max_titled (2) players titled AGM or higher (ASGM counts as
-- higher; a player eligible for AGM but unclaimed is marked AGM in teams.csv by the TD). Every
-- member counts, the 5th one too.
-- Grain: one error per team with too many.
SELECT 'TEAM-COMP-2' AS rule_id,
       'error' AS severity,
       m.entrant AS subject,
       m.entrant AS team,
       format('{} players titled AGM or higher ({}); at most {} allowed', count(*),
              string_agg(format('{} {} board {}', m.title, m.player_name, m.board), ', ' ORDER BY m.board),
              any_value(a.max_titled)) AS detail,
       'https://lichess.org/@/' || arg_max(m.player_name, m.board) AS evidence_url
FROM td_members m
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team' AND m.title IN ('AGM', 'ASGM')
GROUP BY m.entrant, a.max_titled
HAVING count(*) > a.max_titled
