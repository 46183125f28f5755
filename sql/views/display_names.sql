-- display_names: one row per Lichess user id the tournament knows: the name shown to people
-- (every view shows display names to people, never lower-cased ids). Lichess's own spelling from the player's
-- last fetched profile wins; before the first fetch (or for an account Lichess no longer
-- serves) the spelling the TD typed in teams.csv / players.csv.
-- key: user_id
CREATE OR REPLACE VIEW display_names AS
SELECT user_id, username FROM lichess_users
UNION ALL
SELECT player_id AS user_id, player_name AS username
FROM td_members
WHERE player_id NOT IN (SELECT user_id FROM lichess_users);
