-- site_placings: one row per entrant of the placings view (the event's order from the bracket:
-- TEAM-FMT-1, TEAM-KO-1, ARM-1, ACWC-C-1, ACWC-SF-1, ACWC-F-1), in the event's order.
SELECT stage, place, entrant, entrant_id, how FROM placings
