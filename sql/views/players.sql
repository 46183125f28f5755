-- players: one row per registered player, the TD's registration joined to the
-- player's last fetched Lichess profile. Profile columns are NULL until the first ingest.
-- team is the entrant as shown (entrant_names: the team; in an individual event the player's
-- display name), team_id the entrant id the scored tables use.
-- key: user_id
CREATE OR REPLACE VIEW players AS
SELECT
    m.player_id                         AS user_id,
    coalesce(u.username, m.player_name) AS username,
    coalesce(n.entrant, m.entrant)      AS team,
    m.board,
    nullif(m.title, '')                 AS title,
    u.created_at,
    u.is_bot,
    u.is_closed,
    u.tos_violation,
    u.antichess_games,
    u.antichess_rating,
    u.antichess_rd,
    u.is_provisional,
    m.is_captain,
    m.seed_rating,
    u.title                             AS lichess_title,
    u.fetched_at,
    m.entrant                           AS team_id
FROM td_members m
LEFT JOIN lichess_users u ON u.user_id = m.player_id
LEFT JOIN entrant_names n ON n.entrant_id = m.entrant;
