-- Audit acwc_seed. Rules: ACWC-SEED-1.
-- Invariant: players.csv's seed_rating is the seeding rating of ACWC-SEED-1 (the seeding view:
-- the mean of the rating at seeding_at, 2021-09-01 00:00 UTC, and the highest rating from
-- seeding_peak_since, 2021-03-01, to then), to the nearest point (a mean ending in .5 may be
-- rounded either way).
-- Grain: one row per player whose seed differs (warning), who has no seed (info), or for whom
-- no rating is stored (warning).
SELECT 'ACWC-SEED-1' AS rule_id,
       CASE WHEN s.seed_rating IS NULL AND s.seeding_rating IS NOT NULL THEN 'info' ELSE 'warning' END AS severity,
       s.username AS subject,
       CAST(NULL AS VARCHAR) AS team,
       CASE WHEN s.seeding_rating IS NULL
                THEN format('no antichess rating stored before {} UTC: no seeding rating (players.csv says {})',
                            strftime(timezone('UTC', s.seeding_at), '%Y-%m-%d %H:%M'), coalesce(CAST(s.seed_rating AS VARCHAR), 'nothing'))
            ELSE format('seeding rating {} = ({} at {} UTC, from {}{} + highest {} from {}, {} on {}{}) / 2; players.csv says {}',
                        printf('%g', s.seeding_rating), s.rating_at, strftime(timezone('UTC', s.seeding_at), '%Y-%m-%d %H:%M'),
                        s.rating_at_source, coalesce(' game ' || s.rating_at_game_id, ''),
                        s.peak_rating, strftime(timezone('UTC', s.peak_since), '%Y-%m-%d'), s.peak_source,
                        strftime(timezone('UTC', s.peak_time), '%Y-%m-%d %H:%M'), coalesce(' game ' || s.peak_game_id, ''),
                        coalesce(CAST(s.seed_rating AS VARCHAR), 'nothing')) END AS detail,
       CASE WHEN s.peak_game_id IS NOT NULL THEN 'https://lichess.org/' || s.peak_game_id
            ELSE 'https://lichess.org/@/' || s.username END AS evidence_url
FROM seeding s
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual'
  AND (s.seeding_rating IS NULL OR s.seed_rating IS NULL OR abs(s.seed_rating - s.seeding_rating) > 0.5)
