-- standings: one row per (stage, after_round, entrant), ranked by the stage's
-- primary score and tiebreaks (TEAM-SCORE-5, TEAM-TB-1; ACWC-Q-3: Median-Buchholz, cumulative, seed).
-- entrant is the name shown (entrant_names: for individual events the Lichess spelling);
-- entrant_id the id the scored tables and pairings use.
-- key: stage, after_round, entrant_id
CREATE OR REPLACE VIEW standings AS
SELECT s.stage, s.after_round, s.rank, coalesce(n.entrant, s.entrant) AS entrant, s.match_points, s.points_scored,
       s.points_conceded, s.points_difference, s.median_buchholz, s.matches_played, s.cumulative, s.seed_rating,
       s.pool, s.kashdan, s.byes, s.entrant AS entrant_id
FROM scored_standings s
LEFT JOIN entrant_names n ON n.entrant_id = s.entrant;
