-- entrant_names: one row per entrant of teams.csv / players.csv: entrant_id as the scored tables
-- hold it (a team's name as teams.csv spells it; for an individual event the player's Lichess id)
-- and the entrant's name as shown (the team name; the player's display_names username).
-- key: entrant_id
CREATE OR REPLACE VIEW entrant_names AS
SELECT m.entrant AS entrant_id,
       CASE WHEN count(*) = 1 AND bool_and(m.entrant = m.player_id)
            THEN any_value(coalesce(d.username, m.player_name))
            ELSE m.entrant END AS entrant
FROM td_members m
LEFT JOIN display_names d ON d.user_id = m.player_id
GROUP BY m.entrant;
