-- refetch_queue: one row per game id queued in refetch_games (oldest first, then by id), with its dump
-- record's reason and text from rejected_records (NULL when that row is gone) for the ingest's fetch by id.
SELECT q.game_id, q.dump_file, r.reason, r.payload
FROM refetch_games q
LEFT JOIN rejected_records r ON r.source = 'game' AND r.record_key = q.game_id
ORDER BY q.queued_at, q.game_id
