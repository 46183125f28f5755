-- Audit team_elig_bot. Rules: TEAM-ELIG-6.
-- Invariant: no audited player is a BOT account (Lichess title BOT).
-- Grain: one error per BOT account.
SELECT 'TEAM-ELIG-6' AS rule_id,
       'error' AS severity,
       p.username AS subject,
       p.team,
       format('a BOT account (Lichess title {}): BOT accounts cannot play', coalesce(p.lichess_title, 'BOT')) AS detail,
       p.profile_url AS evidence_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND (p.is_bot OR p.lichess_title = 'BOT')
