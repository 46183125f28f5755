-- entrant_names: entrant id -> the name shown (the entrant_names view), for texts written while scoring.
SELECT entrant_id, entrant FROM entrant_names
