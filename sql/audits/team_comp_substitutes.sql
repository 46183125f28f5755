-- Audit team_comp_substitutes. Rules: TEAM-COMP-5.
-- Invariant: only 4 players play in a round: the 5th member substitutes for at most one board a
-- round (error otherwise), and replaces a player of similar rating: the two ratings at the
-- start of the round (the last rating before it, rating_events) differ by at most
-- substitute_max_diff (100) points (warning otherwise: "similar" is the TD's judgement).
-- Grain: one row per offending (substitute, stage, round).
WITH subs AS (
    SELECT o.line, o.stage, o.round, o.subject, o.value, m.entrant AS team, m.board, s.player_name AS sub_name,
           sp.player_name AS subject_name, r.starts_at
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    JOIN td_members s ON s.player_id = o.value
    JOIN td_members sp ON sp.player_id = o.subject
    LEFT JOIN (SELECT stage, round, min(window_start) AS starts_at FROM td_pairings GROUP BY stage, round) r
           ON r.stage = o.stage AND r.round = o.round
    WHERE o.action = 'substitute'
),
rated AS (
    SELECT s.*,
           (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = s.value AND e.rated_at < s.starts_at) AS sub_rating,
           (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = s.subject AND e.rated_at < s.starts_at) AS subject_rating
    FROM subs s
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
