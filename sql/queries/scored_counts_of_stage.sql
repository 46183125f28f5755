-- scored_counts_of_stage: for the run's summary, stage $1's listed and counted match games and its team matches.
SELECT (SELECT count(*) FROM scored_match_games WHERE stage = $1) AS match_games,
       (SELECT count(*) FROM scored_match_games WHERE stage = $1 AND counted) AS counted_games,
       (SELECT count(*) FROM scored_team_matches WHERE stage = $1) AS team_matches
