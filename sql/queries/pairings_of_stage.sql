-- pairings_of_stage: the TD's pairings of stage $1, in file order of rounds.
SELECT round, entrant_a, entrant_b FROM td_pairings WHERE stage = $1 ORDER BY round, entrant_a
