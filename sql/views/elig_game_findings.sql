-- elig_game_findings: one row per audited player (elig_game_counts) who falls short of
-- audit_params.min_rated_games rated antichess games before the cut-off, or whom the run cannot
-- count, as TEAM-ELIG-2 and ACWC-ELIG-2 count them (resolution 2026-12-04; the audits
-- team_elig_game_counts and acwc_elig_games select their event kind's rows).
-- Invariant: no row where the stored games before the cut-off alone reach the minimum. Otherwise
-- the count is the profile's rated antichess games minus the stored games created at or after
-- the cut-off (`count_at_cutoff`): an error below the minimum, stating both numbers; no row at or
-- above it. Without a profile count (a closed account, or no profile fetched) a warning that says
-- which is missing.
-- key: user_id, team_id
CREATE OR REPLACE VIEW elig_game_findings AS
SELECT c.*, a.tournament_kind, a.min_rated_games,
       CASE WHEN c.profile_games IS NULL THEN 'warning' ELSE 'error' END AS severity,
       CASE
           WHEN c.profile_games IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (the Lichess profile count {} as of {} UTC minus {} stored games created at or after {} UTC)',
               strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'), c.count_at_cutoff, a.min_rated_games,
               c.profile_games, strftime(timezone('UTC', c.fetched_at), '%Y-%m-%d %H:%M'), c.stored_since,
               strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'))
           ELSE format(
               'rated antichess games before {} UTC cannot be counted: {}; only {} stored before it (stored games begin {} UTC), {} required',
               strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'),
               CASE WHEN c.is_closed THEN format('the Lichess account is closed, so its profile (as of {} UTC) shows no rated antichess game count',
                                                 strftime(timezone('UTC', c.fetched_at), '%Y-%m-%d %H:%M'))
                    ELSE 'no Lichess profile is stored for this player (not fetched yet, or no such account), so there is no rated antichess game count'
               END,
               c.stored_before, strftime(timezone('UTC', c.history_since), '%Y-%m-%d %H:%M'), a.min_rated_games)
       END AS detail
FROM elig_game_counts c CROSS JOIN audit_params a
WHERE c.stored_before < a.min_rated_games
  AND (c.profile_games IS NULL OR c.count_at_cutoff < a.min_rated_games)
