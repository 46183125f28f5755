-- Audit acwc_conduct_forfeits. Rules: ACWC-CONDUCT-1.
-- Invariant: a player who forfeits forfeits_to_disqualify (2) matches is disqualified
-- (ACWC-CONDUCT-1, as TEAM-CONDUCT-3). Forfeits are the TD's `forfeit` rulings in overrides.csv,
-- counted once per (stage, round). An error while no `disqualify` ruling follows; once the TD has
-- ruled, the count stays as info (evidence).
-- Grain: one row per player with that many forfeits.
WITH forfeited AS (
    SELECT subject, stage, round, min(line) AS line FROM td_overrides WHERE action = 'forfeit' GROUP BY subject, stage, round
),
f AS (
    SELECT subject, count(*) AS n, string_agg(format('{} round {}', stage, round), ', ' ORDER BY line) AS rounds
    FROM forfeited GROUP BY subject
),
dq AS (
    SELECT subject, string_agg(format('{} round {}', stage, round), ', ' ORDER BY line) AS ruled_in
    FROM td_overrides WHERE action = 'disqualify' GROUP BY subject
)
SELECT 'ACWC-CONDUCT-1' AS rule_id,
       CASE WHEN d.subject IS NULL THEN 'error' ELSE 'info' END AS severity,
       m.player_name AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('{} forfeits ({}): {} forfeits disqualify; {}', f.n, f.rounds, a.forfeits_to_disqualify,
              CASE WHEN d.subject IS NULL THEN 'no disqualify ruling in overrides.csv yet'
                   ELSE 'disqualified by the TD in ' || d.ruled_in END) AS detail,
       'https://lichess.org/@/' || m.player_name AS evidence_url
FROM f
JOIN td_members m ON m.player_id = f.subject
LEFT JOIN dq d ON d.subject = f.subject
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual' AND f.n >= a.forfeits_to_disqualify
