-- elig_game_counts: one row per audited player (audited_players), the rated antichess games the
-- eligibility counts rest on (TEAM-ELIG-2/3, ACWC-ELIG-2) around the player's cut-off
-- `counted_before`: the registration time in a team event, audit_params.games_before
-- (2021-09-01) in an individual one. From the stored games (post_game_ratings): `stored_before`
-- created before the cut-off, `stored_since` created at or after it and up to the profile's fetch
-- (all of them without a fetch), `recent` from recent_since to the cut-off (TEAM-ELIG-3).
-- `profile_games`: the profile's rated antichess games (perfs.antichess.games as of `fetched_at`),
-- NULL where the run has none (no profile stored, or a closed account, whose profile shows no
-- count). `count_at_cutoff` = profile_games - stored_since, the games played before the cut-off
-- (resolution 2026-12-04): exact because every game from the cut-off on is stored
-- (lichess.history_since is earlier). NULL without a profile count.
-- key: user_id, team_id
CREATE OR REPLACE VIEW elig_game_counts AS
WITH cut AS (
    SELECT p.user_id, p.username, p.team, p.team_id, p.profile_url, p.registered_at, p.recent_since, p.created_at,
           p.has_profile, p.is_closed, p.fetched_at, a.history_since,
           CASE WHEN p.has_profile AND NOT p.is_closed THEN p.antichess_games END AS profile_games,
           CASE WHEN a.tournament_kind = 'individual' THEN a.games_before ELSE p.registered_at END AS counted_before
    FROM audited_players p CROSS JOIN audit_params a
),
counts AS (
    SELECT c.*,
           count(g.game_id) FILTER (WHERE g.created_at < c.counted_before) AS stored_before,
           count(g.game_id) FILTER (WHERE g.created_at >= c.counted_before
                                      AND (c.fetched_at IS NULL OR g.created_at <= c.fetched_at)) AS stored_since,
           count(g.game_id) FILTER (WHERE g.created_at >= c.recent_since AND g.created_at < c.counted_before) AS recent
    FROM cut c
    LEFT JOIN post_game_ratings g ON g.user_id = c.user_id
    WHERE c.counted_before IS NOT NULL
    GROUP BY ALL
)
SELECT *, profile_games - stored_since AS count_at_cutoff
FROM counts;
