-- schema_fingerprint: the fingerprint of the SQL files a database was last brought up to date
-- with (gateway.migrate writes it as the comment of the audit_findings view); no row before that.
-- grain: at most one row; param $1 = the view's name ('audit_findings')
SELECT comment
FROM duckdb_views()
WHERE view_name = $1 AND NOT internal AND schema_name = 'main'
