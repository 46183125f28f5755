-- Audit team_comp_strongest. Rules: TEAM-COMP-3.
-- Invariant: the players of the configured strongest-players list (audit_strongest_players,
-- from composition.strongest_players) are all on different teams.
-- Grain: one error per team with two or more of them.
SELECT 'TEAM-COMP-3' AS rule_id,
       'error' AS severity,
       p.team AS subject,
       p.team,
       format('{} of the strongest-players list on one team: {}; they must all be on different teams', count(*),
              string_agg(format('{} (board {})', p.username, p.board), ', ' ORDER BY p.board)) AS detail,
       'https://lichess.org/@/' || arg_max(p.username, p.board) AS evidence_url
FROM audited_players p
JOIN audit_strongest_players s ON s.user_id = p.user_id
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY p.team
HAVING count(*) > 1
