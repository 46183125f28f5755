-- site_rulings: one row per TD ruling in force (overrides view, overrides.csv in file order), its
-- subject and value with the names shown (entrant_names, display_names) where they name one.
SELECT o.stage, o.round, o.subject, coalesce(se.entrant, sd.username, o.subject) AS subject_name, o.action, o.value,
       coalesce(ve.entrant, vd.username, o.value) AS value_name, o.reason, o.line
FROM overrides o
LEFT JOIN entrant_names se ON se.entrant_id = o.subject
LEFT JOIN display_names sd ON sd.user_id = lower(o.subject)
LEFT JOIN entrant_names ve ON ve.entrant_id = o.value
LEFT JOIN display_names vd ON vd.user_id = lower(o.value)
ORDER BY o.line
