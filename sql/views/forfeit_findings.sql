-- forfeit_findings: one row per player whose forfeits (forfeit_counts) reach
-- audit_params.forfeits_to_disqualify (2): the finding TEAM-CONDUCT-3 and ACWC-CONDUCT-1 share
-- (the audits team_conduct_forfeits and acwc_conduct_forfeits select their event kind's rows).
-- An error while no `disqualify` ruling follows; once the TD has ruled, info (evidence).
-- key: subject
CREATE OR REPLACE VIEW forfeit_findings AS
SELECT a.tournament_kind,
       CASE WHEN f.ruled_in IS NULL THEN 'error' ELSE 'info' END AS severity,
       m.player_name AS subject,
       m.entrant,
       format('{} forfeits ({}): {} forfeits disqualify; {}', f.n, f.rounds, a.forfeits_to_disqualify,
              CASE WHEN f.ruled_in IS NULL THEN 'no disqualify ruling in overrides.csv yet'
                   ELSE 'disqualified by the TD in ' || f.ruled_in END) AS detail,
       'https://lichess.org/@/' || m.player_name AS evidence_url
FROM forfeit_counts f
JOIN td_members m ON m.player_id = f.subject
CROSS JOIN audit_params a
WHERE f.n >= a.forfeits_to_disqualify
