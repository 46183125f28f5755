-- audited_players: one row per player the eligibility audits check: every registered player
-- (teams.csv / players.csv, role 'member', as of tournament.registration_at) and every
-- replacement named in overrides.csv (role 'replacement', on the team and board of the player
-- replaced, as of the start of the round it plays from: TEAM-COMP-6 "must qualify under the
-- eligibility criteria"). Each player's cut-off times are computed here in UTC calendar months
-- from audit_params (TEAM-ELIG-1/3/4), so the audits need no time-zone setting.
-- team is the entrant as shown (entrant_names: in an individual event the player's display
-- name), team_id the entrant id.
-- key: user_id, team_id, role
CREATE OR REPLACE VIEW audited_players AS
WITH round_start AS (
    SELECT stage, round, min(window_start) AS starts_at FROM td_pairings GROUP BY stage, round
),
roster AS (
    SELECT m.player_id AS user_id, m.player_name, m.entrant AS team, m.board, nullif(m.title, '') AS title,
           m.is_captain, 'member' AS role, CAST(NULL AS VARCHAR) AS replaces, m.seed_rating,
           CAST(NULL AS VARCHAR) AS from_stage, CAST(NULL AS INTEGER) AS from_round, a.registration_at AS registered_at
    FROM td_members m CROSS JOIN audit_params a
    UNION ALL
    SELECT o.value, o.value, m.entrant, m.board, NULL, FALSE, 'replacement', o.subject, NULL,
           o.stage, o.round, coalesce(r.starts_at, a.registration_at)
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    LEFT JOIN round_start r ON r.stage = o.stage AND r.round = o.round
    CROSS JOIN audit_params a
    WHERE o.action = 'replace'
)
SELECT r.user_id, coalesce(u.username, r.player_name) AS username, coalesce(n.entrant, r.team) AS team, r.board, r.title, r.is_captain, r.role,
       r.replaces, r.from_stage, r.from_round, r.seed_rating, r.registered_at,
       timezone('UTC', timezone('UTC', r.registered_at) - to_months(a.min_account_age_months)) AS created_by,
       timezone('UTC', timezone('UTC', r.registered_at) - to_months(a.recent_months)) AS recent_since,
       timezone('UTC', timezone('UTC', r.registered_at) - to_months(a.cheat_months_one)) AS cheat_one_since,
       timezone('UTC', timezone('UTC', r.registered_at) - to_months(a.cheat_months_two)) AS cheat_two_since,
       u.user_id IS NOT NULL AS has_profile, u.created_at, u.is_bot, u.is_closed, u.tos_violation, u.antichess_games,
       u.antichess_rating, u.antichess_rd, u.is_provisional, u.title AS lichess_title, u.fetched_at,
       'https://lichess.org/@/' || coalesce(u.username, r.player_name) AS profile_url,
       r.team AS team_id
FROM roster r
CROSS JOIN audit_params a
LEFT JOIN lichess_users u ON u.user_id = r.user_id
LEFT JOIN entrant_names n ON n.entrant_id = r.team;
