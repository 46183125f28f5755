-- rejected: one row per record set aside with a reason, for the TD (nothing is lost).
-- Grain: one row per (source, record_key, kind); a record that was once rejected and later
-- arrived typed shows under both kinds. kind:
--   'rejected' — arrived but could not be typed (not JSON, a missing field, an unknown status…):
--                only in rejected_records, with the payload exactly as it arrived;
--   'skipped'  — a game of another variant against an outsider: kept in rejected_records, not a
--                game any rule looks at (counted as games_skipped_other_variant, not rejected);
--   'flagged'  — a stored game (lichess_games) whose PGN names other players than its JSON
--                (game_flags, at ingest), or whose verification verdict is mismatch/unreadable
--                (game_verdicts, match games only): it counts as Lichess's JSON reports it
--                (TEAM-SCORE-1, ACWC-Q-2) unless the TD excludes it; both reasons in one row.
-- url: the game or profile on lichess.org when the record names one, else NULL.
-- key: source, record_key, kind
CREATE OR REPLACE VIEW rejected AS
SELECT
    r.source,
    r.record_key,
    CASE WHEN r.source = 'game' AND starts_with(r.reason, 'not antichess (variant ') THEN 'skipped' ELSE 'rejected' END AS kind,
    r.reason,
    r.fetched_at,
    CASE
        WHEN r.source = 'rating_history' THEN 'https://lichess.org/@/' || r.record_key   -- keyed by the user id
        WHEN NOT json_valid(r.payload) OR json_type(r.payload) <> 'OBJECT' OR (r.payload::JSON ->> 'id') IS DISTINCT FROM r.record_key THEN NULL
        WHEN r.source = 'game' THEN 'https://lichess.org/' || r.record_key
        WHEN r.source = 'user' THEN 'https://lichess.org/@/' || r.record_key
    END AS url
FROM rejected_records r
UNION ALL
SELECT
    'game' AS source,
    g.game_id AS record_key,
    'flagged' AS kind,
    concat_ws('; ', f.reason,
              CASE WHEN v.verdict IN ('mismatch', 'unreadable') THEN 'verification ' || v.verdict || ': ' || v.detail END) AS reason,
    w.fetched_at,
    g.url
FROM lichess_games g
LEFT JOIN game_flags f USING (game_id)
LEFT JOIN game_verdicts v USING (game_id)
LEFT JOIN raw_games w USING (game_id)
WHERE f.game_id IS NOT NULL OR v.verdict IN ('mismatch', 'unreadable')
