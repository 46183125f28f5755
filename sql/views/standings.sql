-- standings: one row per (stage, after_round, entrant) (contract 4), ranked by the stage's
-- primary score and tiebreaks (TEAM-SCORE-5, TEAM-TB-1; ACWC-Q-3: Median-Buchholz, cumulative, seed).
CREATE OR REPLACE VIEW standings AS
SELECT stage, after_round, rank, entrant, match_points, points_scored, points_conceded,
       points_difference, median_buchholz, matches_played, cumulative, seed_rating, pool, kashdan, byes
FROM scored_standings;
