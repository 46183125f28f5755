-- site_matches: one row per pairing of pairings.csv (td_pairings) with its team match where one is
-- scored (team_matches: TEAM-SCORE-2, TEAM-SCORE-3's deciding game, TEAM-KO-1 / ARM-1 tiebreaks and
-- rulings) and its round window (TEAM-FMT-3); names as shown (entrant_names), ids for links.
-- outcome NULL: not scored yet (pending).
SELECT p.stage, p.round, p.entrant_a AS team_a_id, p.entrant_b AS team_b_id,
       coalesce(na.entrant, p.entrant_a) AS team_a, coalesce(nb.entrant, p.entrant_b) AS team_b,
       p.window_start, p.window_end,
       t.a_points, t.b_points, t.max_points, t.winning_points, t.decided_by_game_id, t.winner, t.winner_id,
       t.outcome, t.games_played, t.games_due, t.override, t.tiebreak
FROM td_pairings p
LEFT JOIN team_matches t ON t.stage = p.stage AND t.round = p.round AND t.team_a_id = p.entrant_a
LEFT JOIN entrant_names na ON na.entrant_id = p.entrant_a
LEFT JOIN entrant_names nb ON nb.entrant_id = p.entrant_b
ORDER BY p.stage, p.round, p.entrant_a
