-- placings: one row per entrant, the event's final order from the bracket, not a
-- Swiss table: the final's winner 1st, its loser 2nd, the bronze (third-place) match's winner 3rd,
-- its loser 4th; the losers of each earlier knockout round share the next places, ordered by the
-- table before the knockout (Swiss rank; ACWC: the candidates'); then, stage by stage backwards,
-- those who did not go on, in their stage's order (TEAM-FMT-1, TEAM-KO-1, ARM-1, ACWC-C-1,
-- ACWC-SF-1, ACWC-F-1). stage: where the entrant's event ended; place NULL: not decided yet.
-- entrant is the name as shown (entrant_names: the Lichess username for individual events), entrant_id the id.
-- key: entrant_id
CREATE OR REPLACE VIEW placings AS
SELECT p.stage, p.place, coalesce(n.entrant, p.entrant) AS entrant, p.how, p.entrant AS entrant_id
FROM scored_placings p
LEFT JOIN entrant_names n ON n.entrant_id = p.entrant
ORDER BY p.position;
