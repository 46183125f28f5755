-- Audit acwc_elig_games. Rules: ACWC-ELIG-2.
-- Invariant: every player has at least min_rated_games (100) rated antichess games created
-- before games_before (2021-09-01 00:00 UTC). Counted from the stored games (the
-- elig_game_counts view). Where they begin after the account was created and cannot prove it,
-- from the profile's rated antichess games (as of its fetch) minus the stored games created from
-- games_before to that fetch, as TEAM-ELIG-2 counts: the rows are elig_game_findings' (shared
-- with team_elig_game_counts), without a team. Resolution 2026-12-01: where every game of
-- the account should be stored but the profile says more were played before games_before than
-- are stored (history incomplete), the stored count alone is no error: a warning with both
-- numbers when the profile's count reaches 100, an error with both when it is short too. The
-- detail says which source it used.
-- Grain: one row per player short of games (error), or whom the stored data cannot decide (warning).
WITH judged AS (
    SELECT *, all_stored AND profile_before > stored_before AS is_incomplete
    FROM elig_game_findings
    WHERE tournament_kind = 'individual'
)
SELECT 'ACWC-ELIG-2' AS rule_id,
       CASE WHEN is_incomplete AND profile_before >= min_rated_games THEN 'warning' ELSE severity END AS severity,
       username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       CASE
           WHEN is_incomplete AND profile_before >= min_rated_games THEN format(
               'rated antichess games before {} UTC: {} stored < {}, but the Lichess profile count {} as of {} UTC minus {} stored games created since gives {}: the stored games are incomplete (account created {} UTC, after they begin {} UTC); check the count on Lichess',
               strftime(timezone('UTC', counted_before), '%Y-%m-%d %H:%M'), stored_before, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since, profile_before,
               strftime(timezone('UTC', created_at), '%Y-%m-%d %H:%M'), strftime(timezone('UTC', history_since), '%Y-%m-%d %H:%M'))
           WHEN is_incomplete THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since; only {} are stored: the stored games are incomplete)',
               strftime(timezone('UTC', counted_before), '%Y-%m-%d %H:%M'), profile_before, min_rated_games, antichess_games,
               strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'), stored_since, stored_before)
           ELSE detail
       END AS detail,
       profile_url AS evidence_url
FROM judged
