-- Audit team_comp_board_order. Rules: TEAM-COMP-4.
-- Invariant: a team's boards 1..N are in descending order of the seeding rating (the seeding
-- view: by default the rating at registration), unless the TDs allowed that pair of boards to
-- swap (audit_allowed_swaps, from composition.allowed_swaps). An inversion by more than
-- board_order_tolerance (50) points is an error; a smaller one is a warning (comparable
-- players: the TDs may allow the swap).
-- Grain: one row per team with an inversion, listing every inverted pair of boards.
WITH b AS (
    SELECT s.team, s.board, s.username, s.seeding_rating, s.rating_at_source
    FROM seeding s CROSS JOIN audit_params a
    WHERE a.tournament_kind = 'team' AND s.board BETWEEN 1 AND a.boards AND s.seeding_rating IS NOT NULL
      AND s.user_id IN (SELECT player_id FROM td_members)
),
inverted AS (
    SELECT hi.team, hi.board AS board_a, lo.board AS board_b, hi.username AS name_a, lo.username AS name_b,
           hi.seeding_rating AS rating_a, lo.seeding_rating AS rating_b, lo.seeding_rating - hi.seeding_rating AS excess
    FROM b hi
    JOIN b lo ON lo.team = hi.team AND lo.board > hi.board AND lo.seeding_rating > hi.seeding_rating
    WHERE NOT EXISTS (SELECT 1 FROM audit_allowed_swaps w
                      WHERE w.team = hi.team AND w.board_a = hi.board AND w.board_b = lo.board)
)
SELECT 'TEAM-COMP-4' AS rule_id,
       CASE WHEN max(i.excess) > any_value(a.board_order_tolerance) THEN 'error' ELSE 'warning' END AS severity,
       i.team AS subject,
       i.team,
       format('boards not in descending order of the seeding rating at {} UTC: {}; no swap of these boards is allowed (composition.allowed_swaps){}',
              strftime(timezone('UTC', any_value(coalesce(a.seeding_at, a.registration_at))), '%Y-%m-%d %H:%M'),
              string_agg(format('board {} {} ({}) is rated {} above board {} {} ({})', i.board_b, i.name_b, printf('%.0f', i.rating_b),
                                printf('%.0f', i.excess), i.board_a, i.name_a, printf('%.0f', i.rating_a)), '; '
                         ORDER BY i.board_a, i.board_b),
              CASE WHEN max(i.excess) > any_value(a.board_order_tolerance) THEN ''
                   ELSE format(' (within {} points: comparable players?)', any_value(a.board_order_tolerance)) END) AS detail,
       'https://lichess.org/@/' || arg_max(i.name_b, i.excess) AS evidence_url
FROM inverted i
CROSS JOIN audit_params a
GROUP BY i.team
