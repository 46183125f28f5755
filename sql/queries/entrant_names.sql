-- entrant_names: the display name of each entrant of an individual event (entrant = player id):
-- the Lichess username as last fetched, else as the TD typed it. Team events: none (a team's
-- name is its display name).
SELECT user_id AS entrant, username AS name FROM players WHERE team = user_id
