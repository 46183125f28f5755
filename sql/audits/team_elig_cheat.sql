-- Audit team_elig_cheat. Rules: TEAM-ELIG-4.
-- Invariant: no audited player lost a cheat-detected game (Lichess status 'cheat', the player on
-- the losing side) from cheat_months_one (12) calendar months before registration on, and none
-- lost two from cheat_months_two (24) months before registration on. Games after registration
-- count too: the audits run every night.
-- Grain: one error per offending player, listing the games (evidence: the first of them); one
-- warning for the tournament when the stored games begin after the 24-month window opens.
WITH cheats AS (
    SELECT p.user_id, p.username, p.team, p.cheat_one_since, p.cheat_two_since, g.game_id, g.created_at, g.url
    FROM audited_players p
    JOIN lichess_games g ON p.user_id IN (g.white_id, g.black_id)
    WHERE g.status = 'cheat'
      AND ((g.winner = 'white' AND g.black_id = p.user_id) OR (g.winner = 'black' AND g.white_id = p.user_id))
      AND g.created_at >= p.cheat_two_since
),
per_player AS (
    SELECT user_id, username, team, any_value(cheat_one_since) AS one_since, any_value(cheat_two_since) AS two_since,
           count(*) FILTER (WHERE created_at >= cheat_one_since) AS n_one,
           count(*) AS n_two,
           string_agg(format('{} on {}', game_id, strftime(timezone('UTC', created_at), '%Y-%m-%d')), ', ' ORDER BY created_at) AS games,
           arg_min(url, created_at) AS first_url
    FROM cheats
    GROUP BY user_id, username, team
)
SELECT 'TEAM-ELIG-4' AS rule_id,
       'error' AS severity,
       c.username AS subject,
       c.team,
       CASE WHEN c.n_one >= 1
            THEN format('{} cheat-detected game(s) lost since {} UTC ({} months before registration; none allowed): {}',
                        c.n_one, strftime(timezone('UTC', c.one_since), '%Y-%m-%d %H:%M'), a.cheat_months_one, c.games)
            ELSE format('{} cheat-detected games lost since {} UTC ({} months before registration; at most 1 allowed): {}',
                        c.n_two, strftime(timezone('UTC', c.two_since), '%Y-%m-%d %H:%M'), a.cheat_months_two, c.games)
       END AS detail,
       c.first_url AS evidence_url
FROM per_player c
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team' AND (c.n_one >= 1 OR c.n_two >= 2)
UNION ALL
SELECT 'TEAM-ELIG-4', 'warning', 'stored games', NULL,
       format('stored games begin {} UTC, after {} UTC ({} months before the earliest registration): cheat-detected games before then cannot be seen (lichess.history_since)',
              strftime(timezone('UTC', a.history_since), '%Y-%m-%d %H:%M'),
              strftime(timezone('UTC', min(p.cheat_two_since)), '%Y-%m-%d %H:%M'), any_value(a.cheat_months_two)),
       NULL
FROM audited_players p
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
GROUP BY a.history_since
HAVING a.history_since > min(p.cheat_two_since)
