-- attention_accounts: one row per registered player whose Lichess account, as last fetched, is
-- closed (Lichess 'disabled') or carries a tosViolation mark (TEAM-ELIG-5, ACWC-ELIG-3).
SELECT user_id, username, team, is_closed, tos_violation
FROM players
WHERE is_closed OR tos_violation
ORDER BY user_id
