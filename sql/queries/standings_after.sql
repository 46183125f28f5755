-- standings_after: the table of stage $1 after round $2.
SELECT * FROM standings WHERE stage = $1 AND after_round = $2 ORDER BY rank, lower(entrant)
