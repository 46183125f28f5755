-- team_matches: one row per pairing (contract 4); for individual events the team columns hold players.
-- override: the TD ruling (armageddon, ARM-1) that decided it, with its reason; tiebreak: how a
-- tied knockout match was decided (TEAM-KO-1) or what it still needs.
CREATE OR REPLACE VIEW team_matches AS
SELECT stage, round, team_a, team_b, a_points, b_points, max_points, winning_points,
       decided_by_game_id, winner, outcome, games_played, games_due, override, tiebreak
FROM scored_team_matches;
