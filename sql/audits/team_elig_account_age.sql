-- Audit team_elig_account_age. Rules: TEAM-ELIG-1.
-- Invariant: every audited player's Lichess account was created at least
-- audit_params.min_account_age_months (6) calendar months before the player's registration time
-- (tournament.registration_at; for a replacement, the start of the round it plays from).
-- Grain: one error per audited player whose account is younger. Closed accounts hide their
-- creation date: team_elig_marks reports them.
SELECT 'TEAM-ELIG-1' AS rule_id,
       'error' AS severity,
       p.username AS subject,
       p.team,
       format('account created {} UTC, {} days before registration at {} UTC: at least {} months required (created by {} UTC)',
              strftime(timezone('UTC', p.created_at), '%Y-%m-%d %H:%M'),
              CAST(floor((epoch(p.registered_at) - epoch(p.created_at)) / 86400) AS BIGINT),
              strftime(timezone('UTC', p.registered_at), '%Y-%m-%d %H:%M'),
              a.min_account_age_months,
              strftime(timezone('UTC', p.created_by), '%Y-%m-%d %H:%M')) AS detail,
       p.profile_url AS evidence_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND p.created_at IS NOT NULL
  AND p.created_at > p.created_by
