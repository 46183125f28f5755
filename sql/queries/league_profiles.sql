-- The league store's profiles of the ids in $1 fetched at or after $2.
SELECT user_id, payload
FROM league_profiles
WHERE user_id IN (SELECT unnest($1::VARCHAR[])) AND fetched_at >= $2;
