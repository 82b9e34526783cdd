#!/usr/bin/env node
// The DuckDB side of the benchmark: the list-groups table with read_json + regexp_extract + GROUP BY.
// Usage: node bench/duckdb-query.mjs FILE  → prints JSON rows on stdout.
//        node bench/duckdb-query.mjs --ctas FILE DB → DuckDB's own load: CREATE TABLE AS SELECT * FROM read_json.
import { DuckDBInstance } from '@duckdb/node-api';

if (process.argv[2] === '--ctas') {
  const [, , , file, db] = process.argv;
  // DuckDB's own defaults for memory (80% of RAM): with request and response bodies its CTAS needs more than the
  // 384 MB this ran with before, and failed (its peak RSS is in the table beside ours).
  const inst = await DuckDBInstance.create(db, { threads: '2', preserve_insertion_order: 'false' });
  const con = await inst.connect();
  await con.run(`CREATE TABLE events AS SELECT * FROM read_json('${file.replace(/'/g, "''")}', format = 'newline_delimited', ignore_errors = true)`);
  const n = await con.runAndReadAll('SELECT count(*) FROM events');
  process.stdout.write(JSON.stringify({ rows: Number(n.getRows()[0][0]) }) + '\n');
  process.exit(0);
}
const file = process.argv[2];
const sql = `
SELECT userAgent AS user_agent,
       CASE WHEN "user".username LIKE 'system:node:%' THEN 'system:node:<node>' ELSE "user".username END AS username,
       objectRef.resource AS resource,
       regexp_replace(url_decode(regexp_extract(requestURI, 'fieldSelector=([^&]*)', 1)), 'spec\\.nodeName=[^,]*', 'spec.nodeName=<node>') AS selector,
       count(*) AS requests,
       count(*) FILTER (WHERE regexp_extract(requestURI, '[?&]resourceVersion=([^&]*)', 1) = '' AND requestURI NOT LIKE '%continue=%') AS without_rv
FROM read_json('${file.replace(/'/g, "''")}', format = 'newline_delimited', ignore_errors = true, columns = {
  stage: 'VARCHAR', verb: 'VARCHAR', requestURI: 'VARCHAR', userAgent: 'VARCHAR',
  "user": 'STRUCT(username VARCHAR)', objectRef: 'STRUCT(resource VARCHAR)'
})
WHERE stage = 'ResponseComplete' AND verb = 'list'
GROUP BY ALL
ORDER BY requests DESC, user_agent, username, resource, selector`;
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
const reader = await con.runAndReadAll(sql);
process.stdout.write(JSON.stringify(reader.getRowObjectsJson()) + '\n');
