-- names: every id a post may mention (Lichess user ids and entrant ids) with the name shown
-- (display_names, entrant_names); an entrant id wins over a user id spelled the same.
SELECT user_id AS id, username AS name FROM display_names
WHERE user_id NOT IN (SELECT entrant_id FROM entrant_names)
UNION ALL
SELECT entrant_id, entrant FROM entrant_names
