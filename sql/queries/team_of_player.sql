-- team_of_player: each registered player's entrant (teams.csv team; players.csv: the player).
SELECT player_id, entrant FROM td_members
