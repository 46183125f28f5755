-- Audit team_elig_game_counts. Rules: TEAM-ELIG-2, TEAM-ELIG-3.
-- Invariant: as of the player's registration time, the account has at least
-- audit_params.min_rated_games (1000) rated antichess games (TEAM-ELIG-2), and at least
-- min_recent_games (100) of them in the recent_months (3) calendar months before it (TEAM-ELIG-3).
-- Counts come from the elig_game_counts view (stored games created before registration). Stored
-- games reach back only to lichess.history_since: where they cannot prove TEAM-ELIG-2 and the
-- account is older than that horizon, the count is the profile's rated antichess games
-- (lichess_users.antichess_games, as of its fetch) minus the stored games created from
-- registration to that fetch; the detail says which source it used.
-- Grain: one row per (audited player, rule) that falls short; a warning where the stored data
-- cannot decide.
WITH judged AS (
    SELECT c.*, a.min_rated_games, a.min_recent_games, a.recent_months
    FROM elig_game_counts c CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team'
)
SELECT 'TEAM-ELIG-2' AS rule_id,
       CASE WHEN all_stored OR profile_before IS NOT NULL THEN 'error' ELSE 'warning' END AS severity,
       username AS subject,
       team,
       CASE
           WHEN all_stored THEN format('rated antichess games before {} UTC: {} < {} (every game of the account is stored)',
                                       strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'), stored_before, min_rated_games)
           WHEN profile_before IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since registration; stored games begin {} UTC)',
               strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'), profile_before, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since,
               strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'))
           ELSE format('only {} rated antichess games stored before {} UTC (stored games begin {} UTC) and no Lichess profile count: cannot prove {}',
                       stored_before, strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'),
                       strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'), min_rated_games)
       END AS detail,
       profile_url AS evidence_url
FROM judged
WHERE stored_before < min_rated_games
  AND NOT coalesce(is_closed, FALSE)          -- a closed account shows no count: team_elig_marks reports it
  AND (all_stored OR profile_before IS NULL OR profile_before < min_rated_games)
UNION ALL
SELECT 'TEAM-ELIG-3',
       CASE WHEN history_since <= recent_since THEN 'error' ELSE 'warning' END,
       username,
       team,
       format('rated antichess games from {} to {} UTC ({} months before registration): {} < {}{}',
              strftime(timezone('UTC', recent_since), '%Y-%m-%d %H:%M'),
              strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'), recent_months, recent, min_recent_games,
              CASE WHEN history_since <= recent_since THEN ''
                   ELSE format(' (stored games begin {} UTC, after the window opens: older games cannot be counted)',
                               strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M')) END),
       profile_url
FROM judged
WHERE recent < min_recent_games
  AND NOT coalesce(is_closed, FALSE)
