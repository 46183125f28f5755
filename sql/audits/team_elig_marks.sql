-- Audit team_elig_marks. Rules: TEAM-ELIG-5.
-- Invariant: no audited player was banned by Lichess in the past 12 months. The API shows only
-- the present state, without dates: a closed account (Lichess 'disabled') cannot play at all
-- (error; Lichess does not say whether its owner or Lichess closed it); a tosViolation mark
-- (engine or boost) needs the TD to find out when it was given (warning); a player with no
-- stored profile cannot be checked at all (warning).
-- Grain: one row per audited player with a closed account, a mark, or no profile.
SELECT 'TEAM-ELIG-5' AS rule_id,
       CASE WHEN p.is_closed THEN 'error' ELSE 'warning' END AS severity,
       p.username AS subject,
       p.team,
       CASE
           WHEN NOT p.has_profile THEN 'no Lichess profile stored for this player (not fetched yet, or no such account): eligibility cannot be checked'
           WHEN p.is_closed THEN format('the account is closed on Lichess (disabled) as of {} UTC: it cannot play; Lichess does not say whether it was banned',
                                        strftime(timezone('UTC', p.fetched_at), '%Y-%m-%d %H:%M'))
           ELSE format('the profile carries a tosViolation mark (engine or boost) as of {} UTC; Lichess does not publish its date: banned in the past 12 months?',
                       strftime(timezone('UTC', p.fetched_at), '%Y-%m-%d %H:%M'))
       END AS detail,
       p.profile_url AS evidence_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND (NOT p.has_profile OR p.is_closed OR p.tos_violation)
