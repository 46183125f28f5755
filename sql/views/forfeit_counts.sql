-- forfeit_counts: one row per player the TD ruled a forfeit against (overrides.csv `forfeit`),
-- for TEAM-CONDUCT-3 and ACWC-CONDUCT-1: the number of forfeits, counted once per (stage, round)
-- (forfeiting one part or the whole board), the rounds, and where the TD's `disqualify` ruling
-- came (NULL while there is none).
-- key: subject
CREATE OR REPLACE VIEW forfeit_counts AS
WITH forfeited AS (
    SELECT subject, stage, round, min(line) AS line FROM td_overrides WHERE action = 'forfeit' GROUP BY subject, stage, round
),
f AS (
    SELECT subject, count(*) AS n, string_agg(format('{} round {}', stage, round), ', ' ORDER BY line) AS rounds
    FROM forfeited GROUP BY subject
),
dq AS (
    SELECT subject, string_agg(format('{} round {}', stage, round), ', ' ORDER BY line) AS ruled_in
    FROM td_overrides WHERE action = 'disqualify' GROUP BY subject
)
SELECT f.subject, f.n, f.rounds, d.ruled_in
FROM f LEFT JOIN dq d ON d.subject = f.subject
