-- Audit acwc_conduct_forfeits. Rules: ACWC-CONDUCT-1.
-- Invariant: a player who forfeits forfeits_to_disqualify (2) matches is disqualified
-- (ACWC-CONDUCT-1, as TEAM-CONDUCT-3). Forfeits are the TD's `forfeit` rulings in overrides.csv,
-- counted once per (stage, round). An error while no `disqualify` ruling follows; once the TD has
-- ruled, the count stays as info (evidence). The rows are forfeit_findings' (shared with
-- team_conduct_forfeits), without a team.
-- Grain: one row per player with that many forfeits.
SELECT 'ACWC-CONDUCT-1' AS rule_id, severity, subject, CAST(NULL AS VARCHAR) AS team, detail, evidence_url
FROM forfeit_findings
WHERE tournament_kind = 'individual'
