-- sent_messages_all: every notification the runs sent or tried (one row per channel and subject),
-- with its status and tries: what the next run may send again (failed, refused, limited) and what never.
SELECT channel, subject, kind, status, attempts, first_tried_at FROM sent_messages ORDER BY channel, subject
