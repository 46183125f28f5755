-- sent_messages_mark_unknown: a message a run stopped while sending (left 'sending') may have
-- arrived: it becomes 'unknown' and is never sent again. Parameters: answer, updated_at, channel,
-- subject; changes at most one row (the table's key is channel, subject).
UPDATE sent_messages SET status = 'unknown', answer = ?, updated_at = ?
WHERE channel = ? AND subject = ?
