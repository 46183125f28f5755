-- Audit acwc_elig_disqualifying. Rules: ACWC-ELIG-3.
-- Invariant: no player lost a cheat-detected game (status 'cheat', on the losing side) since
-- one_cheat_since (2020-09-01), nor two since two_cheats_since (2018-09-01) (errors); no BOT
-- account (error). Engine marks after 2018-09-01 and booster marks after 2020-09-01 disqualify,
-- but Lichess shows only a tosViolation flag, without its kind or date: a warning for the TD; a
-- closed account cannot play (warning: Lichess does not say why it was closed). A second
-- account of the same person cannot be seen in the data (evidence only, left to the TD).
-- Grain: one row per (player, reason).
WITH cheats AS (
    SELECT p.user_id, p.username, g.game_id, g.created_at, g.url
    FROM audited_players p
    JOIN lichess_games g ON p.user_id IN (g.white_id, g.black_id)
    CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'individual' AND g.status = 'cheat'
      AND ((g.winner = 'white' AND g.black_id = p.user_id) OR (g.winner = 'black' AND g.white_id = p.user_id))
      AND g.created_at >= least(a.one_cheat_since, a.two_cheats_since)
),
per_player AS (
    SELECT c.user_id, any_value(c.username) AS username,
           count(*) FILTER (WHERE c.created_at >= a.one_cheat_since) AS n_one,
           count(*) FILTER (WHERE c.created_at >= a.two_cheats_since) AS n_two,
           string_agg(format('{} on {}', c.game_id, strftime(timezone('UTC', c.created_at), '%Y-%m-%d')), ', ' ORDER BY c.created_at) AS games,
           arg_min(c.url, c.created_at) AS first_url,
           any_value(a.one_cheat_since) AS one_since, any_value(a.two_cheats_since) AS two_since
    FROM cheats c CROSS JOIN audit_params a
    GROUP BY c.user_id
)
SELECT 'ACWC-ELIG-3' AS rule_id,
       'error' AS severity,
       username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       CASE WHEN n_one >= 1 THEN format('{} cheat-detected game(s) lost since {} UTC (none allowed): {}', n_one,
                                        strftime(timezone('UTC', one_since), '%Y-%m-%d %H:%M'), games)
            ELSE format('{} cheat-detected games lost since {} UTC (at most 1 allowed): {}', n_two,
                        strftime(timezone('UTC', two_since), '%Y-%m-%d %H:%M'), games) END AS detail,
       first_url AS evidence_url
FROM per_player
WHERE n_one >= 1 OR n_two >= 2
UNION ALL
SELECT 'ACWC-ELIG-3',
       CASE WHEN p.is_bot OR p.lichess_title = 'BOT' THEN 'error' ELSE 'warning' END,
       p.username, CAST(NULL AS VARCHAR),
       CASE WHEN p.is_bot OR p.lichess_title = 'BOT' THEN 'a BOT account (Lichess title BOT): BOT accounts cannot play'
            WHEN p.is_closed THEN format('the account is closed on Lichess (disabled) as of {} UTC: it cannot play; Lichess does not say why',
                                         strftime(timezone('UTC', p.fetched_at), '%Y-%m-%d %H:%M'))
            ELSE format('the profile carries a tosViolation mark as of {} UTC; Lichess does not publish its kind or date: an engine mark after {} or a booster mark after {} disqualifies',
                        strftime(timezone('UTC', p.fetched_at), '%Y-%m-%d %H:%M'), strftime(timezone('UTC', a.two_cheats_since), '%Y-%m-%d'),
                        strftime(timezone('UTC', a.one_cheat_since), '%Y-%m-%d')) END,
       p.profile_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual' AND (p.is_bot OR p.lichess_title = 'BOT' OR p.is_closed OR p.tos_violation)
UNION ALL
SELECT 'ACWC-ELIG-3', 'warning', p.username, CAST(NULL AS VARCHAR),
       'no Lichess profile stored for this player (not fetched yet, or no such account): eligibility cannot be checked', p.profile_url
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual' AND NOT p.has_profile
