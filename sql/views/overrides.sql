-- overrides: one row per TD ruling from overrides.csv, in file order.
-- key: line
CREATE OR REPLACE VIEW overrides AS
SELECT stage, round, subject, action, value, reason, line FROM td_overrides ORDER BY line;
