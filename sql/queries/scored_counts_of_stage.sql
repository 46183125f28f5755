-- scored_counts_of_stage: for the run's summary, stage $1's listed and counted match games, its team
-- matches, and its matches with unplayed boards (waiting for a TD ruling).
SELECT (SELECT count(*) FROM scored_match_games WHERE stage = $1) AS match_games,
       (SELECT count(*) FROM scored_match_games WHERE stage = $1 AND counted) AS counted_games,
       (SELECT count(*) FROM scored_team_matches WHERE stage = $1) AS team_matches,
       (SELECT count(*) FROM unplayed_matches WHERE stage = $1) AS unplayed_matches
