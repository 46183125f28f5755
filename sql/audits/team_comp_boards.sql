-- Audit team_comp_boards. Rules: TEAM-COMP-1.
-- Invariant: teams play 4 boards, or 3 when fewer than min_teams_for_4_boards (10) teams take
-- part (tournament.boards; the book also says the tournament needs 10 teams, TEAM-FMT-1, so
-- the 3-board path is the TD's call).
-- Grain: at most one warning for the tournament.
WITH n AS (SELECT count(DISTINCT entrant) AS teams FROM td_members)
SELECT 'TEAM-COMP-1' AS rule_id,
       'warning' AS severity,
       a.tournament_id AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('{} teams play {} boards: TEAM-COMP-1 plays {} boards with {} teams{}', n.teams, a.boards,
              CASE WHEN n.teams < a.min_teams_for_4_boards THEN 3 ELSE 4 END,
              CASE WHEN n.teams < a.min_teams_for_4_boards THEN format('fewer than {}', a.min_teams_for_4_boards)
                   ELSE format('{} or more', a.min_teams_for_4_boards) END,
              CASE WHEN n.teams < a.min_teams_for_4_boards THEN format(' (and TEAM-FMT-1 needs {} teams)', a.min_teams_for_4_boards)
                   ELSE '' END) AS detail,
       CAST(NULL AS VARCHAR) AS evidence_url
FROM n CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND n.teams > 0
  AND a.boards <> CASE WHEN n.teams < a.min_teams_for_4_boards THEN 3 ELSE 4 END
