-- windows_of_round: the window of each pairing of stage $1 round $2 ([window_start, window_end), UTC).
SELECT entrant_a, entrant_b, window_start, window_end FROM td_pairings WHERE stage = $1 AND round = $2 ORDER BY entrant_a
