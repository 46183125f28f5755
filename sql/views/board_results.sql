-- board_results: one row per (stage, round, board match, part); part = 'total' holds the board totals (contract 4).
-- override: the TD ruling that set the result, with its reason ('' when the games decided it).
-- is_unplayed: no game played and no ruling once the window and its margin had passed (waits for a ruling).
CREATE OR REPLACE VIEW board_results AS
SELECT stage, round, board, team_a, team_b, player_a, player_b, part, games_played, a_points, b_points, games_due, override,
       is_unplayed
FROM scored_board_results;
