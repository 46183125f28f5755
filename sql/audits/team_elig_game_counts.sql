-- Audit team_elig_game_counts. Rules: TEAM-ELIG-2, TEAM-ELIG-3.
-- Invariant: as of the player's registration time, the account has at least
-- audit_params.min_rated_games (1000) rated antichess games (TEAM-ELIG-2), and at least
-- min_recent_games (100) of them in the recent_months (3) calendar months before it (TEAM-ELIG-3).
-- TEAM-ELIG-2 (resolution 2026-12-04) is counted in the elig_game_counts view: the stored games
-- created before registration where they alone reach the minimum, else the profile's rated
-- antichess games (lichess_users.antichess_games, as of its fetch) minus the stored games created
-- at or after registration, exact because every game from registration on is stored. Its rows are
-- elig_game_findings' (shared with acwc_elig_games), each with the player's team: an error
-- stating both numbers, or a warning naming what is missing where the run has no profile count
-- (a closed account, or no profile fetched). TEAM-ELIG-3 counts the stored games in its window.
-- Grain: one row per (audited player, rule) that falls short; a warning where the stored data
-- cannot decide.
SELECT 'TEAM-ELIG-2' AS rule_id, severity, username AS subject, team, detail, profile_url AS evidence_url
FROM elig_game_findings
WHERE tournament_kind = 'team'
UNION ALL
SELECT 'TEAM-ELIG-3',
       CASE WHEN c.history_since <= c.recent_since THEN 'error' ELSE 'warning' END,
       c.username,
       c.team,
       format('rated antichess games from {} to {} UTC ({} months before registration): {} < {}{}',
              strftime(timezone('UTC', c.recent_since), '%Y-%m-%d %H:%M'),
              strftime(timezone('UTC', c.registered_at), '%Y-%m-%d %H:%M'), a.recent_months, c.recent, a.min_recent_games,
              CASE WHEN c.history_since <= c.recent_since THEN ''
                   ELSE format(' (stored games begin {} UTC, after the window opens: older games cannot be counted)',
                               strftime(timezone('UTC', c.history_since), '%Y-%m-%d %H:%M')) END),
       c.profile_url
FROM elig_game_counts c CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
  AND c.recent < a.min_recent_games
  AND NOT coalesce(c.is_closed, FALSE)          -- a closed account shows no count: team_elig_marks reports it
