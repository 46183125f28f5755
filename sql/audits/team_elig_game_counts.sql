-- Audit team_elig_game_counts. Rules: TEAM-ELIG-2, TEAM-ELIG-3.
-- Invariant: as of the player's registration time, the account has at least
-- audit_params.min_rated_games (1000) rated antichess games (TEAM-ELIG-2), and at least
-- min_recent_games (100) of them in the recent_months (3) calendar months before it (TEAM-ELIG-3).
-- Counts come from the stored games (post_game_ratings, created before registration). Stored
-- games reach back only to lichess.history_since: where they cannot prove TEAM-ELIG-2 and the
-- account is older than that horizon, the count is the profile's rated antichess games
-- (lichess_users.antichess_games, as of its fetch) minus the stored games created from
-- registration to that fetch; the detail says which source it used.
-- Grain: one row per (audited player, rule) that falls short; a warning where the stored data
-- cannot decide.
WITH counts AS (
    SELECT p.user_id, p.username, p.team, p.profile_url, p.registered_at, p.recent_since, p.created_at,
           p.antichess_games, p.fetched_at, p.is_closed,
           count(g.game_id) FILTER (WHERE g.created_at < p.registered_at) AS stored_before,
           count(g.game_id) FILTER (WHERE g.created_at >= p.registered_at AND g.created_at <= p.fetched_at) AS stored_since,
           count(g.game_id) FILTER (WHERE g.created_at >= p.recent_since AND g.created_at < p.registered_at) AS recent
    FROM audited_players p
    LEFT JOIN post_game_ratings g ON g.user_id = p.user_id
    WHERE p.registered_at IS NOT NULL
    GROUP BY ALL
),
judged AS (
    SELECT c.*, a.min_rated_games, a.min_recent_games, a.recent_months, a.history_since,
           c.created_at IS NOT NULL AND a.history_since <= c.created_at AS all_stored,
           c.antichess_games - c.stored_since AS derived
    FROM counts c CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team'
)
SELECT 'TEAM-ELIG-2' AS rule_id,
       CASE WHEN all_stored OR derived IS NOT NULL THEN 'error' ELSE 'warning' END AS severity,
       username AS subject,
       team,
       CASE
           WHEN all_stored THEN format('rated antichess games before {} UTC: {} < {} (every game of the account is stored)',
                                       strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'), stored_before, min_rated_games)
           WHEN derived IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since registration; stored games begin {} UTC)',
               strftime(timezone('UTC', registered_at), '%Y-%m-%d %H:%M'), derived, min_rated_games, antichess_games,
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
  AND (all_stored OR derived IS NULL OR derived < min_rated_games)
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
