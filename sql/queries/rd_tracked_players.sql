-- rd_tracked_players: one row per registered player whose estimated RDs an audit reads, with the
-- time from which none is read (until; NULL: every game). TEAM-ELIG-7 (team_elig_provisional)
-- reads the RD after a player's last rated game before their due time (the initial pairings, or
-- a replacement's first round, if later); TEAM-CAP-5 (team_cap, through cap_ratings) reads every
-- game of a last-board player (last_board_players) from cap_since on. Without a pairings time
-- TEAM-ELIG-7 is not checked and every game is kept. No audit of an individual event reads an RD:
-- no rows. Read by pipeline/stages/audit.py for pipeline/stages/ratings.py.
SELECT ap.user_id,
       CASE WHEN bool_or(lb.user_id IS NOT NULL) OR any_value(a.pairings_announced_at) IS NULL THEN NULL
            ELSE max(greatest(a.pairings_announced_at, coalesce(ap.registered_at, a.pairings_announced_at))) END AS until
FROM audited_players ap
CROSS JOIN audit_params a
LEFT JOIN last_board_players lb ON lb.user_id = ap.user_id
WHERE a.tournament_kind = 'team'
GROUP BY ap.user_id
ORDER BY ap.user_id
