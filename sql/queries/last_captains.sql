-- last_captains: one row per team, the captain audit_captains recorded last (TEAM-COMP-8).
SELECT team, arg_max(player_id, seen_from) AS player_id FROM audit_captains GROUP BY team
