-- announced_standings: the standings view's rank, name and scores per (stage, after_round, entrant):
-- what a round announcement quotes.
SELECT stage, after_round, rank, entrant, match_points, points_scored FROM standings ORDER BY stage, after_round, rank
