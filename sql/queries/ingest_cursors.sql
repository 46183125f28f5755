-- ingest_cursors: every cursor row, for the ingest plan.
SELECT user_id, endpoint, since_ms, synced_games, synced_rating, updated_at FROM ingest_cursors
