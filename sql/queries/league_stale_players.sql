-- Of the ids in $1, those whose profile the league store has not fetched at or after $2.
SELECT id AS user_id
FROM (SELECT unnest($1::VARCHAR[]) AS id) ids
WHERE id NOT IN (SELECT user_id FROM league_profiles WHERE fetched_at >= $2)
ORDER BY id;
