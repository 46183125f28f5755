-- The next arrival number of the league store's game lines.
SELECT coalesce(max(seq), 0) + 1 AS seq FROM league_game_lines;
