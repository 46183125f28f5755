-- Audit team_conduct_forfeits. Rules: TEAM-CONDUCT-3.
-- Invariant: a player who forfeits forfeits_to_disqualify (2) times is disqualified. Forfeits
-- are the TD's `forfeit` rulings in overrides.csv, counted once per (stage, round) (forfeiting
-- one part or the whole board). An error while no `disqualify` ruling follows; once the TD has
-- ruled, the count stays as info (evidence). The rows are forfeit_findings' (shared with
-- acwc_conduct_forfeits), each with the player's team.
-- Grain: one row per player with that many forfeits.
SELECT 'TEAM-CONDUCT-3' AS rule_id, severity, subject, entrant AS team, detail, evidence_url
FROM forfeit_findings
WHERE tournament_kind = 'team'
