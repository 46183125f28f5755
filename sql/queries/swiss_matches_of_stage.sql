-- swiss_matches_of_stage: one row per scored pairing of stage $1 (team_a had White, on board 1 for a
-- team), with what the next Swiss round's pairing needs: the outcome ('a' | 'b' | 'draw' |
-- 'pending' | 'unplayed'), the points and whether any game was played (none: a forfeit, which is
-- no meeting for the repeat rule, as in bbpPairings).
SELECT round, team_a, team_b, outcome, a_points, b_points, max_points, games_played
FROM scored_team_matches WHERE stage = $1 ORDER BY round, team_a
