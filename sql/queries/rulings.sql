-- rulings: every TD ruling of overrides.csv (overrides view), in file order, for the round posts.
SELECT stage, round, subject, action, value, reason, line FROM overrides
