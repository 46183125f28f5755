-- elig_game_findings: one row per audited player (not closed: team_elig_marks and
-- acwc_elig_disqualifying report those) whose rated antichess games before the cut-off
-- (elig_game_counts) fall short of audit_params.min_rated_games, as TEAM-ELIG-2 and ACWC-ELIG-2
-- count them (the audits team_elig_game_counts and acwc_elig_games select their event kind's
-- rows): the stored count where every game of the account is stored, else the profile's count
-- minus the stored games created since the cut-off (`profile_before`). An error where one of them
-- decides, a warning where the stored games begin after the account was created and no profile
-- count can prove it; the detail says which source it used.
CREATE OR REPLACE VIEW elig_game_findings AS
SELECT c.*, a.tournament_kind, a.min_rated_games,
       CASE WHEN c.all_stored OR c.profile_before IS NOT NULL THEN 'error' ELSE 'warning' END AS severity,
       CASE
           WHEN c.all_stored THEN format('rated antichess games before {} UTC: {} < {} (every game of the account is stored)',
                                         strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'), c.stored_before, a.min_rated_games)
           WHEN c.profile_before IS NOT NULL THEN format(
               'rated antichess games before {} UTC: {} < {} (source: the Lichess profile count {} as of {} UTC minus {} stored games created since{}; stored games begin {} UTC)',
               strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'), c.profile_before, a.min_rated_games, c.antichess_games,
               strftime(timezone('UTC', c.fetched_at), '%Y-%m-%d %H:%M'), c.stored_since,
               CASE WHEN a.tournament_kind = 'team' THEN ' registration' ELSE '' END,
               strftime(timezone('UTC', c.history_since), '%Y-%m-%d %H:%M'))
           ELSE format('only {} rated antichess games stored before {} UTC (stored games begin {} UTC) and no Lichess profile count: cannot prove {}',
                       c.stored_before, strftime(timezone('UTC', c.counted_before), '%Y-%m-%d %H:%M'),
                       strftime(timezone('UTC', c.history_since), '%Y-%m-%d %H:%M'), a.min_rated_games)
       END AS detail
FROM elig_game_counts c CROSS JOIN audit_params a
WHERE c.stored_before < a.min_rated_games
  AND NOT coalesce(c.is_closed, FALSE)
  AND (c.all_stored OR c.profile_before IS NULL OR c.profile_before < a.min_rated_games)
