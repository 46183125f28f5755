-- Audit acwc_conduct_forfeits. Rules: ACWC-CONDUCT-1.
-- Invariant: a player who forfeits forfeits_to_disqualify (2) matches is disqualified
-- (ACWC-CONDUCT-1, as TEAM-CONDUCT-3). Forfeits are the TD's `forfeit` rulings in overrides.csv,
-- counted once per (stage, round). An error while no `disqualify` ruling follows; once the TD has
-- ruled, the count stays as info (evidence).
-- Grain: one row per player with that many forfeits.
SELECT 'ACWC-CONDUCT-1' AS rule_id,
       CASE WHEN f.ruled_in IS NULL THEN 'error' ELSE 'info' END AS severity,
       m.player_name AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('{} forfeits ({}): {} forfeits disqualify; {}', f.n, f.rounds, a.forfeits_to_disqualify,
              CASE WHEN f.ruled_in IS NULL THEN 'no disqualify ruling in overrides.csv yet'
                   ELSE 'disqualified by the TD in ' || f.ruled_in END) AS detail,
       'https://lichess.org/@/' || m.player_name AS evidence_url
FROM forfeit_counts f
JOIN td_members m ON m.player_id = f.subject
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual' AND f.n >= a.forfeits_to_disqualify
