-- Audit team_comp_replacement. Rules: TEAM-COMP-6.
-- Invariant: a replacement (overrides.csv `replace`) is at least replacement_min_below (100)
-- rating points below the player it replaces, both rated as at the start of the round it plays
-- from (the last rating before it, rating_events: games, or the daily history where no game is
-- stored). The book states it for replacements of disqualified players; every replacement is
-- held to it.
-- Grain: one row per replacement ruling that falls short (error), or whose ratings are unknown
-- (warning).
WITH repl AS (
    SELECT o.line, o.stage, o.round, o.subject, o.value, m.entrant AS team, m.board, m.player_name AS subject_name,
           coalesce(u.username, o.value) AS repl_name, r.starts_at
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    LEFT JOIN lichess_users u ON u.user_id = o.value
    LEFT JOIN (SELECT stage, round, min(window_start) AS starts_at FROM td_pairings GROUP BY stage, round) r
           ON r.stage = o.stage AND r.round = o.round
    WHERE o.action = 'replace'
),
rated AS (
    SELECT r.*,
           (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = r.value AND e.rated_at < r.starts_at) AS repl_rating,
           (SELECT arg_max(e.rating, e.rated_at) FROM rating_events e WHERE e.user_id = r.subject AND e.rated_at < r.starts_at) AS subject_rating
    FROM repl r
)
SELECT 'TEAM-COMP-6' AS rule_id,
       CASE WHEN repl_rating IS NULL OR subject_rating IS NULL THEN 'warning' ELSE 'error' END AS severity,
       repl_name AS subject,
       team,
       CASE WHEN repl_rating IS NULL OR subject_rating IS NULL
            THEN format('replaces {} (board {}) from {} round {} (overrides.csv line {}): no stored rating before {} UTC for {}; at least {} below is required',
                        subject_name, board, stage, round, line, strftime(timezone('UTC', starts_at), '%Y-%m-%d %H:%M'),
                        CASE WHEN repl_rating IS NULL THEN repl_name ELSE subject_name END, a.replacement_min_below)
            ELSE format('replaces {} (board {}) from {} round {} (overrides.csv line {}): rated {} at {} UTC against {} for {}: only {} below ({} required)',
                        subject_name, board, stage, round, line, repl_rating,
                        strftime(timezone('UTC', starts_at), '%Y-%m-%d %H:%M'), subject_rating, subject_name,
                        subject_rating - repl_rating, a.replacement_min_below)
       END AS detail,
       'https://lichess.org/@/' || repl_name AS evidence_url
FROM rated CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND (repl_rating IS NULL OR subject_rating IS NULL OR subject_rating - repl_rating < a.replacement_min_below)
