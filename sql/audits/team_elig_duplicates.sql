-- Audit team_elig_duplicates. Rules: TEAM-ELIG-8.
-- Invariant: one account plays for one team, on one board. teams.csv itself cannot list a
-- player twice (the run stops with exit code 2, TEAM-ELIG-8); this audit checks what the TD's
-- rulings add: a replacement (overrides.csv `replace`) who is already registered on another team
-- (error) or on the same team (warning: the TD decides whether the 5th member may take the seat),
-- or who is named to replace two different players (error). Several accounts of one person
-- cannot be seen in the data (evidence only, left to the TD).
-- Grain: one row per offending replacement ruling.
WITH repl AS (
    SELECT o.line, o.stage, o.round, o.subject, m.player_name AS subject_name, o.value,
           coalesce(u.username, o.value) AS value_name, m.entrant AS team, m.board
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    LEFT JOIN lichess_users u ON u.user_id = o.value
    WHERE o.action = 'replace'
)
SELECT 'TEAM-ELIG-8' AS rule_id,
       CASE WHEN reg.entrant = r.team THEN 'warning' ELSE 'error' END AS severity,
       reg.player_name AS subject,
       r.team,
       format('overrides.csv line {}: named to replace {} ({} board {}) from {} round {}, but already registered on {} board {}',
              r.line, r.subject_name, r.team, r.board, r.stage, r.round,
              CASE WHEN reg.entrant = r.team THEN 'the same team' ELSE 'team ' || reg.entrant END, reg.board) AS detail,
       'https://lichess.org/@/' || reg.player_name AS evidence_url
FROM repl r
JOIN td_members reg ON reg.player_id = r.value
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
UNION ALL
SELECT 'TEAM-ELIG-8', 'error', any_value(r.value_name), string_agg(DISTINCT r.team, ', ' ORDER BY r.team),
       format('named as the replacement of {} players: {}', count(DISTINCT r.subject),
              string_agg(format('{} ({}, overrides.csv line {})', r.subject_name, r.team, r.line), '; ' ORDER BY r.line)),
       'https://lichess.org/@/' || any_value(r.value_name)
FROM repl r
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY r.value
HAVING count(DISTINCT r.subject) > 1
