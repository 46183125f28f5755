-- site_match_games: one row per game of the match_games view (every game between paired players
-- in or near the window, counted or not, with the reason: TEAM-FMT-3, TEAM-SCORE-1), names as
-- shown, ids for links, in the order the games were played.
SELECT stage, round, board, entrant_a_id, player_a, player_b, player_a_id, player_b_id, game_id, part, counted,
       reason, created_at, time_control, a_points, b_points, url, verdict
FROM match_games
ORDER BY stage, round, entrant_a_id, board, created_at, game_id
