-- Audit acwc_elig_account_age. Rules: ACWC-ELIG-1.
-- Invariant: every player's account was created before audit_params.created_before
-- (2021-03-01 00:00 UTC). Closed accounts hide their creation date: acwc_elig_disqualifying
-- reports them.
-- Grain: one error per younger account.
SELECT 'ACWC-ELIG-1' AS rule_id,
       'error' AS severity,
       p.username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('account created {} UTC, not before {} UTC', strftime(timezone('UTC', p.created_at), '%Y-%m-%d %H:%M'),
              strftime(timezone('UTC', a.created_before), '%Y-%m-%d %H:%M')) AS detail,
       p.profile_url AS evidence_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual'
  AND p.created_at IS NOT NULL
  AND p.created_at >= a.created_before
