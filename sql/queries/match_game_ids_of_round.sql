-- match_game_ids_of_round: every game listed for a match of stage $1 round $2 (counted or not),
-- by the match's first entrant: which exclude_game / include_game rulings concern which match.
SELECT DISTINCT entrant_a, game_id FROM scored_match_games WHERE stage = $1 AND round = $2
