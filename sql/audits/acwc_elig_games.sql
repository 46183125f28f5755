-- Audit acwc_elig_games. Rules: ACWC-ELIG-2.
-- Invariant: every player has at least min_rated_games (100) rated antichess games created
-- before games_before (2021-09-01 00:00 UTC). Resolution 2026-12-04 (superseding 2026-12-01's),
-- counted as TEAM-ELIG-2 counts in the elig_game_counts view: the stored games created before
-- games_before where they alone reach 100, else the profile's rated antichess games (as of its
-- fetch) minus the stored games created at or after games_before, exact because every game from
-- games_before on is stored (lichess.history_since is earlier). The rows are
-- elig_game_findings' (shared with team_elig_game_counts), without a team.
-- Grain: one row per player short of games (an error stating the profile count and the stored
-- games since games_before), or whom the run cannot count (a warning naming what is missing: a
-- closed account's count, or a profile not fetched).
SELECT 'ACWC-ELIG-2' AS rule_id, severity, username AS subject, CAST(NULL AS VARCHAR) AS team, detail,
       profile_url AS evidence_url
FROM elig_game_findings
WHERE tournament_kind = 'individual'
