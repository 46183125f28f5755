-- Audit team_comp_captain. Rules: TEAM-COMP-8.
-- Invariant: a team changes its captain at most once in the tournament (audit_captains records
-- every captain teams.csv has named, run by run); the captain does not sit out a knockout round
-- (no `substitute` ruling for the captain in a stage of kind knockout); no TD is a captain and
-- no two TDs are on one team (audit_directors).
-- Grain: one error per offending team (captain changes, two TDs) or ruling / captain.
SELECT 'TEAM-COMP-8' AS rule_id, 'error' AS severity, c.team AS subject, c.team,
       format('{} captain changes ({}); a team may change its captain once',
              count(*) - 1, string_agg(format('{} from {} UTC', coalesce(m.player_name, c.player_id),
                                              strftime(timezone('UTC', c.seen_from), '%Y-%m-%d %H:%M')), ', ' ORDER BY c.seen_from)) AS detail,
       CAST(NULL AS VARCHAR) AS evidence_url
FROM audit_captains c
LEFT JOIN td_members m ON m.player_id = c.player_id
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY c.team
HAVING count(*) > 2
UNION ALL
SELECT 'TEAM-COMP-8', 'error', m.player_name, m.entrant,
       format('the captain sits out {} round {} (a knockout stage) for {} (overrides.csv line {}); the captain cannot sit out the knockout',
              o.stage, o.round, o.value, o.line),
       'https://lichess.org/@/' || m.player_name
FROM td_overrides o
JOIN td_members m ON m.player_id = o.subject AND m.is_captain
JOIN audit_stages s ON s.stage = o.stage AND s.kind = 'knockout'
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team' AND o.action = 'substitute'
UNION ALL
SELECT 'TEAM-COMP-8', 'error', m.player_name, m.entrant,
       'a tournament director is the captain of the team; no TD may be a captain',
       'https://lichess.org/@/' || m.player_name
FROM td_members m
JOIN audit_directors d ON d.user_id = m.player_id
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team' AND m.is_captain
UNION ALL
SELECT 'TEAM-COMP-8', 'error', m.entrant, m.entrant,
       format('{} tournament directors on one team ({}); no two TDs may be on one team', count(*),
              string_agg(m.player_name, ', ' ORDER BY m.board)),
       CAST(NULL AS VARCHAR)
FROM td_members m
JOIN audit_directors d ON d.user_id = m.player_id
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY m.entrant
HAVING count(*) > 1
