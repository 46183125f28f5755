-- site_byes: one row per bye (byes view: pairings.csv rows with an empty b) with its kind (pab,
-- full, half, zero), the entrant's name as shown and id.
SELECT stage, round, entrant, entrant_id, kind FROM byes ORDER BY stage, round, entrant_id
