-- byes: one row per (stage, round, entrant) the TD gave a bye (pairings.csv rows with an empty b),
-- with its kind: pab (pairing-allocated), full, half or zero (requested); scores in the README.
-- entrant as shown (entrant_names); entrant_id the id the scored tables use.
-- key: stage, round, entrant_id
CREATE OR REPLACE VIEW byes AS
SELECT y.stage, y.round, coalesce(n.entrant, y.entrant) AS entrant, y.kind, y.line, y.entrant AS entrant_id
FROM td_byes y
LEFT JOIN entrant_names n ON n.entrant_id = y.entrant;
