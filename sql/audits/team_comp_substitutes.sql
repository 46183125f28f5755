-- Audit team_comp_substitutes. Rules: TEAM-COMP-5.
-- Invariant: only 4 players play in a round: the 5th member substitutes for at most one board a
-- round (error otherwise), and replaces a player of similar rating: the two ratings at the
-- start of the round (the last rating before it, rating_events) differ by at most
-- substitute_max_diff (100) points (warning otherwise: "similar" is the TD's judgement).
-- The round start and both ratings come from swap_ratings (shared with team_comp_replacement).
-- Grain: one row per offending (substitute, stage, round).
WITH rated AS (
    SELECT r.*, s.player_name AS sub_name, r.value_rating AS sub_rating
    FROM swap_ratings r
    JOIN td_members s ON s.player_id = r.value
    WHERE r.action = 'substitute'
)
SELECT 'TEAM-COMP-5' AS rule_id,
       'error' AS severity,
       any_value(sub_name) AS subject,
       team,
       format('{} round {}: the 5th member substitutes for {} boards ({}); only 4 players play in a round', stage, round,
              count(*), string_agg(format('board {} for {}, overrides.csv line {}', board, subject_name, line), '; ' ORDER BY board)) AS detail,
       'https://lichess.org/@/' || any_value(sub_name) AS evidence_url
FROM rated CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY value, team, stage, round
HAVING count(*) > 1
UNION ALL
SELECT 'TEAM-COMP-5', 'warning', sub_name, team,
       format('{} round {}: substitutes for {} on board {} (overrides.csv line {}) rated {} against {} at the round start {} UTC: {} apart, more than {} (similar rating?)',
              stage, round, subject_name, board, line, sub_rating, subject_rating,
              strftime(timezone('UTC', starts_at), '%Y-%m-%d %H:%M'), abs(sub_rating - subject_rating), a.substitute_max_diff),
       'https://lichess.org/@/' || sub_name
FROM rated CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team' AND abs(sub_rating - subject_rating) > a.substitute_max_diff
