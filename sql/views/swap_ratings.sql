-- swap_ratings: one row per `replace` or `substitute` ruling of overrides.csv whose subject is
-- a member of teams.csv: the team and board, the start of the round it plays from (the earliest
-- window_start of the stage's round), and the ratings of the member sitting out (`subject`) and
-- of the player coming in (`value`) at that start: the last rating before it (rating_events:
-- games, or the daily history where no game is stored; NULL when none is stored). The audits
-- team_comp_replacement (TEAM-COMP-6) and team_comp_substitutes (TEAM-COMP-5) read it.
-- key: line
CREATE OR REPLACE VIEW swap_ratings AS
WITH swaps AS (
    SELECT o.line, o.action, o.stage, o.round, o.subject, o.value, m.entrant AS team, m.board,
           m.player_name AS subject_name, r.starts_at
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    LEFT JOIN (SELECT stage, round, min(window_start) AS starts_at FROM td_pairings GROUP BY stage, round) r
           ON r.stage = o.stage AND r.round = o.round
    WHERE o.action IN ('replace', 'substitute')
)
SELECT s.*,
       (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = s.value AND e.rated_at < s.starts_at) AS value_rating,
       (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = s.subject AND e.rated_at < s.starts_at) AS subject_rating
FROM swaps s
