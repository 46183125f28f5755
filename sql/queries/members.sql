-- members: one row per registered player as published (td_members): entrant (team name, or the
-- player id for an individual event), player id, board, players.csv's seed rating and captaincy.
SELECT entrant, player_id, board, seed_rating, is_captain FROM td_members ORDER BY entrant, board
