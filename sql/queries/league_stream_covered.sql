-- Whether a complete games export fetched at or after $4 holds every game of player $1 against
-- $2 ('' for all opponents) from $3 (NULL: from the first) on: the player's whole stream, the
-- pair's own, or the opponent's whole stream.
SELECT count(*) > 0 AS covered
FROM league_streams
WHERE fetched_at >= $4
  AND (from_ms IS NULL OR ($3 IS NOT NULL AND from_ms <= $3))
  AND ((user_id = $1 AND vs IN ('', $2))
       OR ($2 <> '' AND user_id = $2 AND vs IN ('', $1)));
