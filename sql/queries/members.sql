-- members: one row per registered player as published (td_members): entrant (team name, or the
-- player id for an individual event), player id, board and players.csv's seed rating.
SELECT entrant, player_id, board, seed_rating FROM td_members ORDER BY entrant, board
