-- byes_of_stage: every bye of stage $1 as published (td_byes: pairings.csv rows with an empty b),
-- by round and entrant id, with its kind (pab | full | half | zero).
SELECT round, entrant, kind FROM td_byes WHERE stage = $1 ORDER BY round, entrant
