-- scored_counts_of_stage: for the run's summary, stage $1's listed and counted match games, its team
-- matches, and its matches with unplayed boards (waiting for a TD ruling): the rows the
-- unplayed_matches view has for the stage, counted from the tables it reads, without the names it
-- builds for each.
SELECT (SELECT count(*) FROM scored_match_games WHERE stage = $1) AS match_games,
       (SELECT count(*) FROM scored_match_games WHERE stage = $1 AND counted) AS counted_games,
       (SELECT count(*) FROM scored_team_matches WHERE stage = $1) AS team_matches,
       (SELECT count(*)
        FROM (SELECT DISTINCT round, team_a FROM scored_board_results
              WHERE stage = $1 AND part = 'total' AND is_unplayed) b
        JOIN scored_team_matches t ON t.stage = $1 AND t.round = b.round AND t.team_a = b.team_a) AS unplayed_matches
