-- last_window_end: the end of the latest round window of the TD's pairings (NULL when none):
-- a proposed round follows it (TEAM-FMT-3's weekly rounds).
SELECT max(window_end) AS window_end FROM td_pairings
