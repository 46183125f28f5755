-- Audit acwc_elig_games. Rules: ACWC-ELIG-2.
-- Invariant: every player has at least min_rated_games (100) rated antichess games created
-- before games_before (2021-09-01 00:00 UTC). Counted from the stored games (the
-- elig_game_counts view). Where they begin after the account was created and cannot prove it,
-- from the profile's rated antichess games (as of its fetch) minus the stored games created from
-- games_before to that fetch, as TEAM-ELIG-2 counts. Resolution 2026-12-01: where every game of
-- the account should be stored but the profile says more were played before games_before than
-- are stored (history incomplete), the stored count alone is no error: a warning with both
-- numbers when the profile's count reaches 100, an error with both when it is short too. The
-- detail says which source it used.
-- Grain: one row per player short of games (error), or whom the stored data cannot decide (warning).
WITH judged AS (
    SELECT c.*, a.min_rated_games, a.games_before,
           c.all_stored AND c.profile_before > c.stored_before AS is_incomplete
    FROM elig_game_counts c CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'individual'
)
SELECT 'ACWC-ELIG-2' AS rule_id,
       CASE WHEN is_incomplete AND profile_before >= min_rated_games THEN 'warning'
            WHEN all_stored OR profile_before IS NOT NULL THEN 'error'
            ELSE 'warning' END AS severity,
       username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       CASE
           WHEN is_incomplete AND profile_before >= min_rated_games THEN format(
               'rated antichess games before {} UTC: {} stored < {}, but the Lichess profile count {} as of {} UTC minus {} stored games created since gives {}: the stored games are incomplete (account created {} UTC, after they begin {} UTC); check the count on Lichess',
               strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), stored_before, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since, profile_before,
               strftime(timezone('UTC', created_at), '%Y-%m-%d %H:%M'), strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'))
           WHEN is_incomplete THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since; only {} are stored: the stored games are incomplete)',
               strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), profile_before, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since, stored_before)
           WHEN all_stored THEN format('rated antichess games before {} UTC: {} < {} (every game of the account is stored)',
                                       strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), stored_before, min_rated_games)
           WHEN profile_before IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since; stored games begin {} UTC)',
               strftime(timezone('UTC', games_before), '%Y-%m-%d %H:%M'), profile_before, min_rated_games, antichess_games,
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
  AND (all_stored OR profile_before IS NULL OR profile_before < min_rated_games)
