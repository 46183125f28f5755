-- cap_ratings: one row per (last-board player, rating event from cap_since on): every
-- post-game rating since audit_params.cap_since (TEAM-CAP-2), the end-of-day rating of the
-- daily history where no game of that day is stored, and the rating carried in at cap_since
-- (carried: the last rating before it, placed at cap_since), each with the team's cap
-- (last_board_players, TEAM-CAP-1) and the RD estimate after the game (rating_estimates).
-- crossing: NULL at or below the cap; above it 'counted' (rd_est <= cap_max_rd, TEAM-CAP-5),
-- 'high_rd' (rd_est above it: does not count), 'unknown' (no estimate, or the daily history).
-- next_below_at: the next event at or below the cap (NULL: still above at the last one).
-- Read by sql/audits/team_cap.sql and the cap charts.
-- key: user_id, team, rated_at, source, game_id
CREATE OR REPLACE VIEW cap_ratings AS
WITH ev AS (
    SELECT b.user_id, e.rated_at, e.rating, e.source, e.game_id, FALSE AS carried
    FROM last_board_players b JOIN rating_events e ON e.user_id = b.user_id AND e.rated_at >= b.cap_since
    UNION ALL
    SELECT b.user_id, any_value(b.cap_since), arg_max(e.rating, e.rated_at), arg_max_null(e.source, e.rated_at),
           arg_max_null(e.game_id, e.rated_at), TRUE
    FROM last_board_players b JOIN rating_events e ON e.user_id = b.user_id AND e.rated_at < b.cap_since
    GROUP BY b.user_id
)
SELECT ev.user_id, b.username, b.team, b.role, b.cap, b.cap_reason, ev.rated_at,
       CAST(timezone('UTC', ev.rated_at) AS DATE) AS day, ev.rating, ev.source, ev.game_id, ev.carried,
       r.rd_est, r.rd_low, r.rd_high,
       CASE WHEN ev.rating <= b.cap THEN NULL
            WHEN r.rd_est IS NULL THEN 'unknown'
            WHEN r.rd_est <= a.cap_max_rd THEN 'counted'
            ELSE 'high_rd' END AS crossing,
       min(CASE WHEN ev.rating <= b.cap THEN ev.rated_at END)
           OVER (PARTITION BY ev.user_id ORDER BY ev.rated_at, ev.game_id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_below_at
FROM ev
JOIN last_board_players b USING (user_id)
CROSS JOIN audit_params a
LEFT JOIN rating_estimates r ON r.game_id = ev.game_id AND r.user_id = ev.user_id;
