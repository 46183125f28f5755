-- The lines of player $1's games (against $2 when it is not '') created at or after $3 (NULL: all),
-- in the order the games export sends them: createdAt ascending, arrival order within a millisecond.
SELECT line
FROM league_game_lines
WHERE ($3 IS NULL OR created_ms >= $3)
  AND (CASE WHEN $2 = '' THEN
            $1 IN (white_id, black_id) OR (white_id IS NULL AND black_id IS NULL AND stream_user = $1)
       ELSE (white_id = $1 AND black_id = $2) OR (white_id = $2 AND black_id = $1) END)
ORDER BY created_ms NULLS FIRST, seq;
