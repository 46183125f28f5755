-- registered_player_ids: one row per registered player id (td_members, and the replacements the
-- TD named in overrides.csv), as run.Inputs.player_ids() gives them.
SELECT player_id AS user_id FROM td_members
UNION
SELECT value FROM td_overrides WHERE action = 'replace'
ORDER BY user_id
