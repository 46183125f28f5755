-- Audit team_comp_disqualified. Rules: TEAM-COMP-7.
-- Invariant: a team with two disqualified players, or with a disqualified (or replaced: the
-- captain cannot be replaced) captain, is disqualified as a whole. A player counts as
-- disqualified with a `disqualify` ruling in overrides.csv or after forfeits_to_disqualify (2)
-- forfeits (TEAM-CONDUCT-3).
-- Grain: one row per such team: an error until every member of the team carries a
-- `disqualify` ruling, then info.
WITH forfeits AS (
    SELECT subject, count(DISTINCT (stage, round)) AS n FROM td_overrides WHERE action = 'forfeit' GROUP BY subject
),
dq AS (
    SELECT m.player_id, m.player_name, m.entrant AS team, m.is_captain,
           EXISTS (SELECT 1 FROM td_overrides o WHERE o.action = 'disqualify' AND o.subject = m.player_id) AS ruled,
           coalesce(f.n, 0) AS forfeits,
           EXISTS (SELECT 1 FROM td_overrides o WHERE o.action = 'replace' AND o.subject = m.player_id) AS replaced
    FROM td_members m LEFT JOIN forfeits f ON f.subject = m.player_id
),
flagged AS (
    SELECT d.*, d.ruled OR d.forfeits >= a.forfeits_to_disqualify AS disqualified
    FROM dq d CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team'
),
teams AS (
    SELECT team,
           count(*) FILTER (WHERE disqualified) AS n_dq,
           bool_or(is_captain AND disqualified) AS captain_dq,
           bool_or(is_captain AND replaced) AS captain_replaced,
           bool_and(ruled) AS all_ruled,
           string_agg(CASE WHEN disqualified OR (is_captain AND replaced) THEN
                          format('{}{} ({})', player_name, CASE WHEN is_captain THEN ', the captain' ELSE '' END,
                                 concat_ws(', ', CASE WHEN ruled THEN 'disqualify ruling' END,
                                           CASE WHEN forfeits > 0 THEN format('{} forfeit(s)', forfeits) END,
                                           CASE WHEN replaced THEN 'replaced' END)) END, '; ' ORDER BY player_name) AS who,
           min(player_name) FILTER (WHERE disqualified OR (is_captain AND replaced)) AS evidence_name
    FROM flagged
    GROUP BY team
)
SELECT 'TEAM-COMP-7' AS rule_id,
       CASE WHEN all_ruled THEN 'info' ELSE 'error' END AS severity,
       team AS subject,
       team,
       format('{}: the team is disqualified{}: {}',
              concat_ws(' and ', CASE WHEN n_dq >= 2 THEN format('{} players disqualified', n_dq) END,
                        CASE WHEN captain_dq THEN 'the captain disqualified' END,
                        CASE WHEN captain_replaced AND NOT captain_dq THEN 'the captain replaced (a captain cannot be replaced)' END),
              CASE WHEN all_ruled THEN ' (every member has a disqualify ruling)' ELSE '' END, who) AS detail,
       'https://lichess.org/@/' || evidence_name AS evidence_url
FROM teams
WHERE n_dq >= 2 OR captain_dq OR captain_replaced
