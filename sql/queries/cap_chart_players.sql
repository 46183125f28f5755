-- cap_chart_players: one row per last-board player (last_board_players) for the cap charts.
SELECT user_id, username, team, cap, cap_since FROM last_board_players ORDER BY team, user_id
