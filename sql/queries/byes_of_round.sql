-- byes_of_round: the byes of stage $1 round $2 (pairings.csv rows with an empty b), by entrant,
-- names as shown (byes view).
SELECT entrant, kind FROM byes WHERE stage = $1 AND round = $2 ORDER BY lower(entrant)
