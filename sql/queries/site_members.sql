-- site_members: one row per registered player (players view: teams.csv / players.csv and the last
-- fetched profile; TEAM-COMP-1..8's boards, titles and captains), with the entrant's name as shown.
SELECT p.user_id, p.username, p.team_id AS entrant_id, coalesce(n.entrant, p.team) AS entrant, p.board, p.title,
       p.antichess_rating, p.antichess_rd, p.is_provisional, p.is_captain, p.seed_rating
FROM players p
LEFT JOIN entrant_names n ON n.entrant_id = p.team_id
ORDER BY p.team_id, p.board, p.user_id
