-- last_window_end: when the latest round of the TD's pairings ends (NULL when none): a round
-- ends with its earliest window end, so a TD's extension of one late match does not move it.
-- A proposed round follows it (TEAM-FMT-3's weekly rounds).
SELECT max(round_end) AS window_end
FROM (SELECT min(window_end) AS round_end FROM td_pairings GROUP BY stage, round)
