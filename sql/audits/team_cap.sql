-- Audit team_cap. Rules: TEAM-CAP-1, TEAM-CAP-2, TEAM-CAP-3, TEAM-CAP-4, TEAM-CAP-5, TEAM-CAP-6.
-- Invariant: no player of the last board (board 4: registered, a replacement, or the 5th member
-- substituting there; last_board_players) is "above" the team's cap. TEAM-CAP-1: the cap from
-- the team's titles (two or more AGM-or-higher → cap_two_agm 2000; one ASGM, no AGM →
-- cap_one_asgm 2100; one AGM, no ASGM → cap_one_agm 2150; none → cap_no_title 2200).
-- TEAM-CAP-2: only ratings from cap_since on count (a rating above the cap carried in at
-- cap_since counts from then). A crossing is a post-game rating strictly above the cap
-- (cap_ratings: per game; the daily rating history only for days without a stored game).
-- TEAM-CAP-5: a crossing counts only if the estimated RD after it (rating_estimates.rd_est) is
-- at most cap_max_rd (80); a crossing whose RD is unknown (no estimate, or from the daily
-- history) is never assumed either way: it makes a warning.
-- TEAM-CAP-3: counted crossings on cap_min_cross_days (3) different UTC days → above (error).
-- TEAM-CAP-4: from a counted crossing until the next post-game rating at or below the cap (or
-- the audit time, if none) for more than cap_hold_hours (24) → above (error). TEAM-CAP-6: found
-- above before cap_replace_by → the player must be replaced (error). Crossings that did not
-- count because of their RD are listed as TEAM-CAP-5 evidence (info), and a player with
-- crossings that do not make it "above" gets a TEAM-CAP-3 info row.
-- Grain: up to one row per (last-board player, rule); the detail lists the crossing days with
-- their first crossing game, its rating and RD estimate [low, high]; evidence_url is the first
-- counted crossing game (or the profile); the chart is written by `antichess-td export`.
WITH a AS (
    SELECT * FROM audit_params WHERE tournament_kind = 'team'
),
marked AS (
    SELECT c.*, a.audited_at, a.cap_max_rd, a.cap_hold_hours, a.cap_min_cross_days, a.cap_since, a.cap_replace_by
    FROM cap_ratings c CROSS JOIN a
),
crossings AS (
    SELECT m.*, (epoch(coalesce(m.next_below_at, m.audited_at)) - epoch(m.rated_at)) / 3600 AS spell_h,
           CASE WHEN m.source = 'rating_history' THEN format('end-of-day rating {} from the daily rating history, RD unknown', m.rating)
                WHEN m.rd_est IS NULL THEN format('{} {}, RD unknown', m.game_id, m.rating)
                ELSE format('{} {}, RD {} [{}, {}]', m.game_id, m.rating, printf('%.0f', m.rd_est), printf('%.0f', m.rd_low),
                            printf('%.0f', m.rd_high)) END
           || CASE WHEN m.carried THEN format(', carried in at {}', strftime(timezone('UTC', m.cap_since), '%Y-%m-%d')) ELSE '' END AS what
    FROM marked m
    WHERE m.crossing IS NOT NULL
),
days AS (
    SELECT user_id, day, count(*) AS above_n,
           CASE WHEN bool_or(crossing = 'counted') THEN 'counted' WHEN bool_or(crossing = 'unknown') THEN 'unknown' ELSE 'high_rd' END AS status
    FROM crossings GROUP BY user_id, day
),
day_text AS (
    SELECT d.user_id, d.day, d.status, d.above_n,
           arg_min(c.what, c.rated_at) AS first_what, min(c.rated_at) AS first_at, arg_min_null(c.game_id, c.rated_at) AS first_game,
           row_number() OVER (PARTITION BY d.user_id, d.status ORDER BY d.day) AS nth
    FROM days d JOIN crossings c ON c.user_id = d.user_id AND c.day = d.day AND c.crossing = d.status
    GROUP BY d.user_id, d.day, d.status, d.above_n
),
per_player AS (
    SELECT b.user_id, b.username, b.team, b.role, b.cap, b.cap_reason AS why, any_value(a.cap_min_cross_days) AS min_days,
           any_value(a.cap_max_rd) AS max_rd, any_value(a.cap_hold_hours) AS hold_h, any_value(a.cap_since) AS since,
           any_value(a.cap_replace_by) AS replace_by,
           count(*) FILTER (WHERE t.status = 'counted') AS counted_days,
           count(*) FILTER (WHERE t.status = 'unknown') AS unknown_days,
           count(*) FILTER (WHERE t.status = 'high_rd') AS high_days,
           string_agg(CASE WHEN t.status <> 'high_rd' THEN format('{} ({}{}{})', strftime(t.day, '%Y-%m-%d'), t.first_what,
                                                                 CASE WHEN t.above_n > 1 THEN format('; {} ratings above', t.above_n) ELSE '' END,
                                                                 CASE WHEN t.status = 'unknown' THEN '; not known to count' ELSE '' END) END,
                      '; ' ORDER BY t.day) AS day_list,
           string_agg(CASE WHEN t.status = 'high_rd' THEN format('{} ({})', strftime(t.day, '%Y-%m-%d'), t.first_what) END,
                      '; ' ORDER BY t.day) AS high_list,
           arg_min(t.first_game, t.day) FILTER (WHERE t.status = 'counted') AS first_counted_game,
           arg_min(t.first_game, t.day) AS first_game,
           min(t.first_at) FILTER (WHERE t.status = 'counted' AND t.nth = a.cap_min_cross_days) AS cap3_at
    FROM last_board_players b
    CROSS JOIN a
    LEFT JOIN day_text t ON t.user_id = b.user_id
    GROUP BY b.user_id, b.username, b.team, b.role, b.cap, b.cap_reason
),
spells AS (
    SELECT user_id,
           max(spell_h) FILTER (WHERE crossing = 'counted') AS counted_h,
           arg_max(rated_at, spell_h) FILTER (WHERE crossing = 'counted') AS counted_from,
           arg_max_null(next_below_at, spell_h) FILTER (WHERE crossing = 'counted') AS counted_until,
           arg_max(what, spell_h) FILTER (WHERE crossing = 'counted') AS counted_what,
           max(spell_h) FILTER (WHERE crossing = 'unknown') AS unknown_h,
           arg_max(rated_at, spell_h) FILTER (WHERE crossing = 'unknown') AS unknown_from,
           arg_max(what, spell_h) FILTER (WHERE crossing = 'unknown') AS unknown_what,
           bool_and(source = 'rating_history') AS all_daily
    FROM crossings GROUP BY user_id
),
stored AS (
    SELECT b.user_id, count(g.game_id) AS games_since
    FROM last_board_players b CROSS JOIN a LEFT JOIN post_game_ratings g ON g.user_id = b.user_id AND g.played_at >= a.cap_since
    GROUP BY b.user_id
),
summary AS (
    SELECT p.*, s.counted_h, s.counted_from, s.counted_until, s.counted_what, s.unknown_h, s.unknown_from, s.unknown_what,
           st.games_since,
           least(p.cap3_at, CASE WHEN s.counted_h > p.hold_h THEN s.counted_from + to_microseconds(CAST(p.hold_h * 3600e6 AS BIGINT)) END) AS above_at,
           format('{} {} of {}, cap {} ({}; TEAM-CAP-1), ratings since {}{}', CASE p.role WHEN 'substitute' THEN 'substitute on board'
                                                                              WHEN 'replacement' THEN 'replacement on board' ELSE 'board' END,
                  (SELECT boards FROM a), p.team, p.cap, p.why, strftime(timezone('UTC', p.since), '%Y-%m-%d'),
                  CASE WHEN st.games_since = 0 AND s.all_daily THEN ' (no games stored since then: from the daily rating history, RD unknown)' ELSE '' END) AS head,
           format('chart: charts/cap_{}.svg', p.user_id) AS chart,
           coalesce('https://lichess.org/' || coalesce(p.first_counted_game, p.first_game), 'https://lichess.org/@/' || p.username) AS url
    FROM per_player p
    LEFT JOIN spells s USING (user_id)
    LEFT JOIN stored st USING (user_id)
)
SELECT 'TEAM-CAP-3' AS rule_id,
       CASE WHEN counted_days >= min_days THEN 'error' WHEN counted_days + unknown_days >= min_days THEN 'warning' ELSE 'info' END AS severity,
       username AS subject,
       team,
       format('{}: above {} after a rated game on {} day(s) that count{}, {} needed{}: {}; {}', head, cap, counted_days,
              CASE WHEN unknown_days > 0 THEN format(' and {} more of unknown RD', unknown_days) ELSE '' END, min_days,
              CASE WHEN counted_days >= min_days THEN ' → above the cap'
                   WHEN counted_days + unknown_days >= min_days THEN ' → above the cap if the unknown RDs are at most ' || printf('%.0f', max_rd)
                   ELSE ' → not above (crossing once or twice and falling back does not count)' END,
              day_list, chart) AS detail,
       url AS evidence_url
FROM summary
WHERE counted_days + unknown_days > 0
UNION ALL
SELECT 'TEAM-CAP-4',
       CASE WHEN counted_h > hold_h THEN 'error' ELSE 'warning' END,
       username, team,
       CASE WHEN counted_h > hold_h
            THEN format('{}: above {} for {} hours from {} UTC ({}) {}, more than {} hours → above the cap; {}', head, cap,
                        printf('%.1f', counted_h), strftime(timezone('UTC', counted_from), '%Y-%m-%d %H:%M'), counted_what,
                        CASE WHEN counted_until IS NULL THEN 'and still above at the last stored rating'
                             ELSE format('until {} UTC', strftime(timezone('UTC', counted_until), '%Y-%m-%d %H:%M')) END,
                        printf('%.0f', hold_h), chart)
            ELSE format('{}: above {} for {} hours from {} UTC ({}), more than {} hours, but the RD of that crossing is unknown; {}', head,
                        cap, printf('%.1f', unknown_h), strftime(timezone('UTC', unknown_from), '%Y-%m-%d %H:%M'), unknown_what,
                        printf('%.0f', hold_h), chart) END,
       url
FROM summary
WHERE counted_h > hold_h OR unknown_h > hold_h
UNION ALL
SELECT 'TEAM-CAP-5', 'info', username, team,
       format('{}: crossings above {} made at an RD above {} do not count: {}; {}', head, cap, printf('%.0f', max_rd), high_list, chart),
       url
FROM summary
WHERE high_days > 0
UNION ALL
SELECT 'TEAM-CAP-6', 'error', username, team,
       format('{}: above the cap from {} UTC, before {}: the team must replace its board-{} player; {}', head,
              strftime(timezone('UTC', above_at), '%Y-%m-%d %H:%M'), strftime(timezone('UTC', replace_by), '%Y-%m-%d'),
              (SELECT boards FROM a), chart),
       url
FROM summary
WHERE above_at < replace_by
