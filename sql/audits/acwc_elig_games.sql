-- Audit acwc_elig_games. Rules: ACWC-ELIG-2.
-- Invariant: every player has at least min_rated_games (100) rated antichess games created
-- before games_before (2021-09-01 00:00 UTC). Counted from the stored games; where they begin
-- after the account was created and cannot prove it, from the profile's rated antichess games
-- (as of its fetch) minus the stored games created from games_before to that fetch; the detail
-- says which.
-- Grain: one row per player short of games (error), or whom the stored data cannot decide (warning).
WITH counts AS (
    SELECT p.user_id, p.username, p.profile_url, p.created_at, p.antichess_games, p.fetched_at, p.is_closed,
           count(g.game_id) FILTER (WHERE g.created_at < a.games_before) AS stored_before,
           count(g.game_id) FILTER (WHERE g.created_at >= a.games_before AND g.created_at <= p.fetched_at) AS stored_since
    FROM audited_players p
    CROSS JOIN audit_params a
    LEFT JOIN post_game_ratings g ON g.user_id = p.user_id
    WHERE a.tournament_kind = 'individual'
    GROUP BY ALL
),
judged AS (
    SELECT c.*, a.min_rated_games, a.games_before, a.history_since,
           c.created_at IS NOT NULL AND a.history_since <= c.created_at AS all_stored,
           c.antichess_games - c.stored_since AS derived
    FROM counts c CROSS JOIN audit_params a
)
SELECT 'ACWC-ELIG-2' AS rule_id,
       CASE WHEN all_stored OR derived IS NOT NULL THEN 'error' ELSE 'warning' END AS severity,
       username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       CASE
           WHEN all_stored THEN format('rated antichess games before {} UTC: {} < {} (every game of the account is stored)',
                                       strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), stored_before, min_rated_games)
           WHEN derived IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since; stored games begin {} UTC)',
               strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), derived, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since,
               strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'))
           ELSE format('only {} rated antichess games stored before {} UTC (stored games begin {} UTC) and no Lichess profile count: cannot prove {}',
                       stored_before, strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'),
                       strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'), min_rated_games)
       END AS detail,
       profile_url AS evidence_url
FROM judged
WHERE stored_before < min_rated_games
  AND NOT coalesce(is_closed, FALSE)
  AND (all_stored OR derived IS NULL OR derived < min_rated_games)
