-- standings_shown_after: the table of stage $1 after round $2 as the round post shows it: names
-- as people read them (standings view: entrant_names), entrant_id beside them.
SELECT * FROM standings WHERE stage = $1 AND after_round = $2 ORDER BY rank, lower(entrant)
