-- elig_game_counts: one row per audited player (audited_players), the rated antichess games the
-- eligibility counts rest on (TEAM-ELIG-2/3, ACWC-ELIG-2), before the player's cut-off
-- `counted_before`: the registration time in a team event, audit_params.games_before in an
-- individual one. From the stored games (post_game_ratings): `stored_before` created before the
-- cut-off, `stored_since` created from it to the profile's fetch, `recent` from recent_since to
-- the cut-off (TEAM-ELIG-3). `all_stored`: the account was created after the stored games begin
-- (lichess.history_since), so every game of it should be stored. `profile_before`: the profile's
-- rated antichess games (as of its fetch) minus stored_since, what the profile says was played
-- before the cut-off (NULL without a profile count); above stored_before, the stored history is
-- incomplete.
CREATE OR REPLACE VIEW elig_game_counts AS
WITH cut AS (
    SELECT p.user_id, p.username, p.team, p.team_id, p.profile_url, p.registered_at, p.recent_since, p.created_at,
           p.antichess_games, p.fetched_at, p.is_closed, a.history_since,
           CASE WHEN a.tournament_kind = 'individual' THEN a.games_before ELSE p.registered_at END AS counted_before
    FROM audited_players p CROSS JOIN audit_params a
),
counts AS (
    SELECT c.*,
           count(g.game_id) FILTER (WHERE g.created_at < c.counted_before) AS stored_before,
           count(g.game_id) FILTER (WHERE g.created_at >= c.counted_before AND g.created_at <= c.fetched_at) AS stored_since,
           count(g.game_id) FILTER (WHERE g.created_at >= c.recent_since AND g.created_at < c.counted_before) AS recent
    FROM cut c
    LEFT JOIN post_game_ratings g ON g.user_id = c.user_id
    WHERE c.counted_before IS NOT NULL
    GROUP BY ALL
)
SELECT *,
       created_at IS NOT NULL AND history_since <= created_at AS all_stored,
       antichess_games - stored_since AS profile_before
FROM counts;
