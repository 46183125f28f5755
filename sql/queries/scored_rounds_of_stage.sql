-- scored_rounds_of_stage: the fingerprint of every scored round of stage $1.
SELECT round, fingerprint FROM scored_rounds WHERE stage = $1 ORDER BY round
