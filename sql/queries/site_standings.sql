-- site_standings: one row per (stage, after_round, entrant) of the standings view, for the site's
-- standings pages (TEAM-SCORE-5, TEAM-TB-1, ACWC-Q-2, ACWC-Q-3, ACWC-C-1's pools): the name as
-- shown (entrant_names) and the id for links, every tiebreak column.
SELECT stage, after_round, rank, entrant, entrant_id, matches_played, match_points, points_scored, points_conceded,
       points_difference, median_buchholz, cumulative, seed_rating, kashdan, byes, pool
FROM standings
ORDER BY stage, after_round, pool NULLS FIRST, rank, entrant_id
