-- Audit team_comp_replacement. Rules: TEAM-COMP-6.
-- Invariant: a replacement (overrides.csv `replace`) is at least replacement_min_below (100)
-- rating points below the player it replaces, both rated as at the start of the round it plays
-- from (the last rating before it, rating_events: games, or the daily history where no game is
-- stored). The book states it for replacements of disqualified players; every replacement is
-- held to it.
-- The round start and both ratings come from swap_ratings (shared with team_comp_substitutes).
-- Grain: one row per replacement ruling that falls short (error), or whose ratings are unknown
-- (warning).
WITH rated AS (
    SELECT s.*, coalesce(u.username, s.value) AS repl_name, s.value_rating AS repl_rating
    FROM swap_ratings s
    LEFT JOIN lichess_users u ON u.user_id = s.value
    WHERE s.action = 'replace'
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
