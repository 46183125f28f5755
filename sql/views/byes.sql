-- byes: one row per (stage, round, entrant) the TD gave a bye (pairings.csv rows with an empty b),
-- with its kind: pab (pairing-allocated), full, half or zero (requested); scores in the README.
CREATE OR REPLACE VIEW byes AS
SELECT stage, round, entrant, kind, line FROM td_byes;
