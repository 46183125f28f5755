-- last_board_players: one row per player of a team's last board (board 4; tournament.boards):
-- registered there, a replacement of that board's player, or the 5th member substituting there
-- (role 'member' | 'replacement' | 'substitute'), with the team's board-4 rating cap from its
-- titles (TEAM-CAP-1: two or more AGM-or-higher → cap_two_agm; one ASGM and no AGM →
-- cap_one_asgm; one AGM and no ASGM → cap_one_agm; none → cap_no_title; every member counts).
-- Team events only.
-- key: user_id, team
CREATE OR REPLACE VIEW last_board_players AS
WITH titles AS (
    SELECT entrant AS team, count(*) FILTER (WHERE title IN ('AGM', 'ASGM')) AS n_titled,
           count(*) FILTER (WHERE title = 'AGM') AS n_agm, count(*) FILTER (WHERE title = 'ASGM') AS n_asgm
    FROM td_members GROUP BY entrant
),
players AS (
    SELECT p.user_id, p.username, p.team_id AS team, p.role
    FROM audited_players p CROSS JOIN audit_params a WHERE a.tournament_kind = 'team' AND p.board = a.boards
    UNION
    SELECT s.player_id, s.player_name, m.entrant, 'substitute'
    FROM td_overrides o
    JOIN td_members m ON m.player_id = o.subject
    JOIN td_members s ON s.player_id = o.value
    CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team' AND o.action = 'substitute' AND m.board = a.boards
)
SELECT p.user_id, p.username, p.team, p.role, a.boards AS board,
       CASE WHEN t.n_titled >= 2 THEN a.cap_two_agm WHEN t.n_asgm = 1 THEN a.cap_one_asgm
            WHEN t.n_agm = 1 THEN a.cap_one_agm ELSE a.cap_no_title END AS cap,
       CASE WHEN t.n_titled >= 2 THEN format('{} players AGM or higher', t.n_titled) WHEN t.n_asgm = 1 THEN 'one ASGM, no AGM'
            WHEN t.n_agm = 1 THEN 'one AGM, no ASGM' ELSE 'no AGM or ASGM' END AS cap_reason,
       a.cap_since
FROM players p
JOIN titles t ON t.team = p.team
CROSS JOIN audit_params a;
