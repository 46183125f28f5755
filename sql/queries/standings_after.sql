-- standings_after: the table of stage $1 after round $2, with the ids the pairings use (entrant
-- = entrant_id: the bracket and the next pairings are built from it; standings_shown_after has
-- the names people read).
SELECT * FROM scored_standings WHERE stage = $1 AND after_round = $2 ORDER BY rank, lower(entrant)
