-- standings_latest: one row per entrant of stage $1, the table after its latest scored round.
SELECT *
FROM standings
WHERE stage = $1
  AND after_round = (SELECT max(after_round) FROM standings WHERE stage = $1)
ORDER BY rank, lower(entrant)
