-- announced_pairings: one row per pairing of pairings.csv (td_pairings), with the entrants' names as
-- shown and the round's window [window_start, window_end): what a round announcement lists.
SELECT p.stage, p.round, coalesce(na.entrant, p.entrant_a) AS a, coalesce(nb.entrant, p.entrant_b) AS b,
       p.window_start, p.window_end
FROM td_pairings p
LEFT JOIN entrant_names na ON na.entrant_id = p.entrant_a
LEFT JOIN entrant_names nb ON nb.entrant_id = p.entrant_b
ORDER BY p.stage, p.round, lower(a)
