-- Audit team_elig_provisional. Rules: TEAM-ELIG-7.
-- Invariant: every audited player's antichess rating is not provisional (RD < provisional_rd,
-- 110) when the initial pairings are announced (audit_params.pairings_announced_at; for a
-- replacement, the start of the round it plays from, if later). Lichess does not keep past RDs:
-- the RD after the player's last rated game before that moment comes from rating_estimates
-- (rd_est, with its interval [rd_low, rd_high]) and is decayed to the moment as Lichess does
-- (Glicko-2 step 6: 0.21436 rating periods a day at assumed_volatility, at most 500). Before the
-- moment has come, the profile's current provisional flag is the evidence.
-- Grain: one row per audited player provisional at that moment (error), possibly provisional or
-- of unknown RD (warning).
WITH p AS (
    SELECT ap.user_id, ap.username, ap.team, ap.profile_url, ap.created_at, ap.is_provisional, ap.antichess_rd, ap.fetched_at,
           greatest(a.pairings_announced_at, coalesce(ap.registered_at, a.pairings_announced_at)) AS due_at,
           a.audited_at, a.history_since, a.provisional_rd, a.assumed_volatility
    FROM audited_players ap CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team' AND a.pairings_announced_at IS NOT NULL AND ap.has_profile AND NOT ap.is_closed
),
last_game AS (
    SELECT p.user_id, arg_max_null(g.game_id, g.played_at) AS game_id, max(g.played_at) AS played_at
    FROM p JOIN post_game_ratings g ON g.user_id = p.user_id AND g.played_at < p.due_at
    GROUP BY p.user_id
),
last_day AS (
    SELECT p.user_id, max(r.day) AS day
    FROM p JOIN lichess_rating_points r ON r.user_id = p.user_id AND timezone('UTC', r.day + INTERVAL 1 DAY) <= p.due_at
    GROUP BY p.user_id
),
judged AS (
    SELECT p.*, l.game_id, l.played_at, d.day AS last_day, e.rd_est, e.rd_low, e.rd_high,
           (epoch(p.due_at) - epoch(l.played_at)) / 86400 AS idle_days,
           least(500, 173.7178 * sqrt(power(e.rd_est / 173.7178, 2) + (epoch(p.due_at) - epoch(l.played_at)) / 86400 * 0.21436 * power(p.assumed_volatility, 2))) AS rd_due,
           least(500, 173.7178 * sqrt(power(e.rd_low / 173.7178, 2) + (epoch(p.due_at) - epoch(l.played_at)) / 86400 * 0.21436 * power(p.assumed_volatility, 2))) AS rd_due_low,
           least(500, 173.7178 * sqrt(power(e.rd_high / 173.7178, 2) + (epoch(p.due_at) - epoch(l.played_at)) / 86400 * 0.21436 * power(p.assumed_volatility, 2))) AS rd_due_high
    FROM p
    LEFT JOIN last_game l USING (user_id)
    LEFT JOIN last_day d USING (user_id)
    LEFT JOIN rating_estimates e ON e.game_id = l.game_id AND e.user_id = p.user_id
)
SELECT 'TEAM-ELIG-7' AS rule_id,
       CASE WHEN due_at > audited_at THEN 'warning'
            WHEN game_id IS NULL AND last_day IS NULL AND created_at IS NOT NULL AND history_since <= created_at THEN 'error'
            WHEN game_id IS NULL OR rd_est IS NULL THEN 'warning'
            WHEN rd_due >= provisional_rd THEN 'error'
            ELSE 'warning' END AS severity,
       username AS subject,
       team,
       CASE WHEN due_at > audited_at
                THEN format('provisional now (RD {} as of {} UTC); the initial pairings at {} UTC need an established rating (RD < {})',
                            antichess_rd, strftime(timezone('UTC', fetched_at), '%Y-%m-%d %H:%M'),
                            strftime(timezone('UTC', due_at), '%Y-%m-%d %H:%M'), printf('%.0f', provisional_rd))
            WHEN game_id IS NULL AND last_day IS NOT NULL
                THEN format('RD unknown at the initial pairings {} UTC: the last rating before them is from the daily rating history ({}), no stored game',
                            strftime(timezone('UTC', due_at), '%Y-%m-%d %H:%M'), strftime(last_day, '%Y-%m-%d'))
            WHEN game_id IS NULL
                THEN format('no rated antichess game stored before the initial pairings at {} UTC: the rating is provisional (RD 500) unless games older than {} UTC exist',
                            strftime(timezone('UTC', due_at), '%Y-%m-%d %H:%M'), strftime(timezone('UTC', history_since), '%Y-%m-%d'))
            WHEN rd_est IS NULL
                THEN format('RD unknown at the initial pairings {} UTC: no RD estimate for the last rated game before them ({} on {}, {} days earlier)',
                            strftime(timezone('UTC', due_at), '%Y-%m-%d %H:%M'), game_id,
                            strftime(timezone('UTC', played_at), '%Y-%m-%d'), printf('%.0f', idle_days))
            ELSE format('RD at the initial pairings {} UTC estimated {} [{}, {}] (RD {} [{}, {}] after the last rated game before them, {} on {}, decayed over {} days at volatility {}): {}',
                        strftime(timezone('UTC', due_at), '%Y-%m-%d %H:%M'), printf('%.0f', rd_due), printf('%.0f', rd_due_low),
                        printf('%.0f', rd_due_high), printf('%.0f', rd_est), printf('%.0f', rd_low), printf('%.0f', rd_high), game_id,
                        strftime(timezone('UTC', played_at), '%Y-%m-%d'), printf('%.0f', idle_days), assumed_volatility,
                        CASE WHEN rd_due >= provisional_rd THEN format('provisional (RD >= {})', printf('%.0f', provisional_rd))
                             ELSE format('possibly provisional: the interval reaches {}', printf('%.0f', provisional_rd)) END)
       END AS detail,
       CASE WHEN game_id IS NULL THEN profile_url ELSE 'https://lichess.org/' || game_id END AS evidence_url
FROM judged
WHERE (due_at > audited_at AND coalesce(is_provisional, FALSE))
   OR (due_at <= audited_at AND (game_id IS NULL OR rd_est IS NULL OR rd_due_high >= provisional_rd OR rd_due >= provisional_rd))
