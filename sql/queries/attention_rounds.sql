-- attention_rounds: one row per (stage, round) of pairings.csv (its pairings and byes): how many
-- matches it has, how many are decided (outcome 'a', 'b' or 'draw': not pending, not waiting for a
-- ruling) and when its window ends (the latest window_end of its pairings; NULL for byes only).
WITH paired AS (
    SELECT stage, round, count(*) AS matches, max(window_end) AS window_end FROM td_pairings GROUP BY stage, round
), bye_rounds AS (
    SELECT DISTINCT stage, round FROM td_byes
), decided AS (
    SELECT stage, round, count(*) FILTER (WHERE outcome IN ('a', 'b', 'draw')) AS decided
    FROM scored_team_matches GROUP BY stage, round
)
SELECT stage, round, coalesce(p.matches, 0) AS matches, coalesce(d.decided, 0) AS decided, p.window_end
FROM paired p
FULL JOIN bye_rounds y USING (stage, round)
LEFT JOIN decided d USING (stage, round)
ORDER BY stage, round
