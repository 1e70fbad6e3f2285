-- SQLite workload for covkit's real-code comparisons (tests/realcode,
-- sqlite): deterministic (no random(), no clocks), run by
-- sqlite_workload.sh on a database file so that the pager, the journal
-- and the WAL run too. It exercises the planner (joins, indexes, CTEs,
-- subqueries, window functions), the VM's opcodes, triggers, views,
-- JSON, FTS5, R-tree, transactions and savepoints, ALTER TABLE and the
-- shell's own commands (.mode, .schema, .dump).
.bail off
.headers on
PRAGMA page_size = 1024;
PRAGMA cache_size = 64;
PRAGMA foreign_keys = ON;

CREATE TABLE dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, budget REAL CHECK (budget >= 0));
CREATE TABLE emp(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  dept_id INTEGER REFERENCES dept(id) ON DELETE SET NULL,
  salary INTEGER DEFAULT 1000,
  boss INTEGER REFERENCES emp(id),
  hired TEXT,
  notes BLOB
);
CREATE INDEX emp_dept ON emp(dept_id, salary DESC);
CREATE INDEX emp_name ON emp(name COLLATE NOCASE);
CREATE TABLE audit(seq INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT, old_val, new_val);

INSERT INTO dept(name, budget) VALUES ('eng', 1e6), ('ops', 2.5e5), ('sales', 4e5), ('legal', 0), ('empty', 12.5);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO emp(id, name, dept_id, salary, boss, hired, notes)
SELECT i, 'emp' || printf('%05d', i), (i % 4) + 1, 1000 + (i * 37) % 5000,
       CASE WHEN i > 10 THEN (i / 10) END,
       date('2001-01-01', '+' || (i * 3) || ' days'),
       CASE WHEN i % 7 = 0 THEN zeroblob(i % 50) WHEN i % 5 = 0 THEN x'00ff10' END
FROM n;

CREATE TRIGGER emp_upd AFTER UPDATE OF salary ON emp WHEN new.salary <> old.salary
BEGIN
  INSERT INTO audit(what, old_val, new_val) VALUES ('salary ' || new.id, old.salary, new.salary);
END;
CREATE TRIGGER emp_del BEFORE DELETE ON emp
BEGIN
  INSERT INTO audit(what, old_val) VALUES ('delete ' || old.id, old.name);
  SELECT RAISE(ABORT, 'cannot delete the root') WHERE old.id = 1;
END;
CREATE TRIGGER dept_ins AFTER INSERT ON dept FOR EACH ROW
BEGIN
  UPDATE dept SET budget = budget + 1 WHERE id = new.id AND budget < 1;
END;
CREATE VIEW dept_stats AS
  SELECT d.name, count(e.id) AS n, sum(e.salary) AS total, avg(e.salary) AS mean,
         min(e.salary) AS lo, max(e.salary) AS hi
  FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.id;
CREATE TRIGGER view_ins INSTEAD OF INSERT ON dept_stats
BEGIN
  INSERT INTO dept(name, budget) VALUES (new.name, coalesce(new.total, 0));
END;

SELECT * FROM dept_stats ORDER BY name;
SELECT count(*), sum(salary), total(salary), avg(salary), group_concat(DISTINCT dept_id) FROM emp;
SELECT dept_id, count(*) FROM emp GROUP BY dept_id HAVING count(*) > 400 ORDER BY 2 DESC, 1;
SELECT e.name, b.name AS boss FROM emp e JOIN emp b ON b.id = e.boss WHERE e.id BETWEEN 100 AND 110 ORDER BY e.id;
SELECT e.name FROM emp e LEFT JOIN emp b ON b.id = e.boss WHERE b.id IS NULL ORDER BY e.id LIMIT 5;
SELECT d.name, e.name FROM dept d CROSS JOIN emp e WHERE e.id < 3 ORDER BY 1, 2;
SELECT name FROM emp WHERE name LIKE 'EMP0001%' ORDER BY name;
SELECT name FROM emp WHERE name GLOB 'emp0002[0-3]' ORDER BY name;
SELECT count(*) FROM emp WHERE salary IN (SELECT salary FROM emp WHERE id % 97 = 0);
SELECT count(*) FROM emp WHERE EXISTS (SELECT 1 FROM emp b WHERE b.boss = emp.id);
SELECT count(*) FROM emp WHERE dept_id NOT IN (1, 2) AND salary > 3000;
SELECT id FROM emp WHERE salary = (SELECT max(salary) FROM emp) ORDER BY id LIMIT 3;
SELECT id, name FROM emp INDEXED BY emp_dept WHERE dept_id = 3 AND salary > 5900 ORDER BY id;
SELECT id FROM emp NOT INDEXED WHERE name = 'emp00042';
SELECT * FROM emp WHERE rowid = 17;
SELECT typeof(notes), length(notes), hex(notes) FROM emp WHERE id IN (5, 7, 14, 35) ORDER BY id;
SELECT hired, strftime('%Y-%j', hired), julianday(hired) - julianday('2001-01-01') FROM emp WHERE id IN (1, 500, 2000);
SELECT date('2020-02-28', '+1 day'), date('2021-02-28', '+1 day'), datetime(0, 'unixepoch'), time('12:34:56.789');
SELECT abs(-5), round(2.5), round(-2.567, 2), max(1, 'a', x'00'), min(3, 2.0), coalesce(NULL, NULL, 3), ifnull(NULL, 'x'), nullif(1, 1);
SELECT upper('abc'), lower('ÀBC'), length('héllo'), substr('abcdef', -3, 2), instr('hello', 'll'), replace('aaa', 'a', 'bb'), trim('  x  '), ltrim('xxy', 'x'), rtrim('yxx', 'x');
SELECT quote('it''s'), quote(x'0102'), quote(1.5), quote(NULL), unicode('€'), char(72, 105), hex('A'), zeroblob(3) = x'000000';
SELECT printf('%5.2f|%-5s|%05d|%x|%o|%e|%g|%c|%q|%Q|%w', 3.14159, 'ab', 42, 255, 8, 12345.678, 0.0001, 'z', 'a''b', NULL, 'c"d');
SELECT CAST('12abc' AS INTEGER), CAST(3.9 AS INTEGER), CAST(x'41' AS TEXT), CAST('1e3' AS REAL), CAST(12 AS TEXT) || 'x';
SELECT 7 / 2, 7 % 3, 7.0 / 2, -7 / 2, 1 << 62, (1 << 63) - 1, 9223372036854775807 + 1, 5 & 3, 5 | 3, ~5;
SELECT 'a' < 'b', 'a' = 'A' COLLATE NOCASE, 'abc' < 'abd' COLLATE RTRIM, NULL = NULL, NULL IS NULL, 1 IS NOT 2;
SELECT CASE 3 WHEN 1 THEN 'one' WHEN 3 THEN 'three' ELSE 'other' END, CASE WHEN 0 THEN 'a' END, iif(1, 'y', 'n');
SELECT soundex('Robert'), soundex('Rupert'), likelihood(1, 0.5), unlikely(0), likely(1);
SELECT sqrt(16), pow(2, 10), floor(-1.5), ceil(1.2), ln(exp(1)), log10(1000), log(2, 8), pi() > 3, mod(10, 3), sign(-3), degrees(pi());

-- window functions
SELECT id, salary, row_number() OVER w, rank() OVER w, dense_rank() OVER w,
       percent_rank() OVER w, cume_dist() OVER w, ntile(4) OVER w
FROM emp WHERE id <= 12 WINDOW w AS (ORDER BY salary DESC) ORDER BY id;
SELECT id, sum(salary) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
       avg(salary) OVER (PARTITION BY dept_id ORDER BY id RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
       lag(salary, 1, -1) OVER (ORDER BY id), lead(name) OVER (ORDER BY id),
       first_value(name) OVER (PARTITION BY dept_id ORDER BY id), last_value(id) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       nth_value(id, 2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
FROM emp WHERE id <= 15 ORDER BY id;
SELECT dept_id, group_concat(id, ',') OVER (PARTITION BY dept_id ORDER BY id ROWS 1 PRECEDING EXCLUDE CURRENT ROW)
FROM emp WHERE id <= 9 ORDER BY id;
SELECT count(*) FILTER (WHERE salary > 3000), max(salary) FILTER (WHERE dept_id = 2) FROM emp;

-- common table expressions
WITH RECURSIVE chain(id, depth, path) AS (
  SELECT id, 0, name FROM emp WHERE id = 1999
  UNION ALL
  SELECT e.boss, c.depth + 1, c.path || '>' || b.name FROM chain c JOIN emp e ON e.id = c.id JOIN emp b ON b.id = e.boss
)
SELECT * FROM chain ORDER BY depth;
WITH RECURSIVE fib(a, b, n) AS (SELECT 0, 1, 0 UNION ALL SELECT b, a + b, n + 1 FROM fib WHERE n < 60)
SELECT n, a FROM fib WHERE n % 10 = 0;
WITH RECURSIVE tree(id, lvl) AS (SELECT 1, 0 UNION ALL SELECT e.id, t.lvl + 1 FROM emp e JOIN tree t ON e.boss = t.id ORDER BY 2 DESC LIMIT 50)
SELECT lvl, count(*) FROM tree GROUP BY lvl;
WITH big AS MATERIALIZED (SELECT dept_id, salary FROM emp WHERE salary > 4000),
     small AS NOT MATERIALIZED (SELECT dept_id, salary FROM emp WHERE salary < 1500)
SELECT (SELECT count(*) FROM big), (SELECT count(*) FROM small), (SELECT count(*) FROM big JOIN small USING (dept_id) WHERE big.salary > 5990);
WITH RECURSIVE mandel(x, y, it) AS (SELECT -2.0, -1.0, 0 UNION ALL SELECT x + 0.5, y, it + 1 FROM mandel WHERE x < 1.0)
SELECT group_concat(x) FROM mandel;

-- compound selects, subqueries, values
SELECT id FROM emp WHERE id < 5 UNION SELECT id FROM emp WHERE id BETWEEN 3 AND 7 ORDER BY 1;
SELECT id FROM emp WHERE id < 5 UNION ALL SELECT 2 ORDER BY 1;
SELECT id FROM emp WHERE id < 10 INTERSECT SELECT id FROM emp WHERE id % 2 = 0;
SELECT id FROM emp WHERE id < 10 EXCEPT SELECT id FROM emp WHERE id % 3 = 0;
VALUES (1, 'a'), (2, 'b'), (3, NULL);
SELECT * FROM (SELECT dept_id, max(salary) m FROM emp GROUP BY dept_id) WHERE m > 0 ORDER BY dept_id;
SELECT (SELECT name FROM dept WHERE id = emp.dept_id), count(*) FROM emp GROUP BY 1 ORDER BY 1;
SELECT DISTINCT dept_id FROM emp ORDER BY dept_id DESC LIMIT 2 OFFSET 1;
SELECT * FROM emp e1 NATURAL JOIN (SELECT id, name FROM emp WHERE id < 4) ORDER BY id;
SELECT a.id, b.id FROM emp a JOIN emp b USING (dept_id) WHERE a.id < 3 AND b.id < 9 ORDER BY 1, 2;
SELECT e.id FROM emp e RIGHT JOIN dept d ON d.id = e.dept_id WHERE e.id IS NULL OR e.id < 3 ORDER BY d.id, e.id;
SELECT d.id, e.id FROM dept d FULL OUTER JOIN emp e ON e.dept_id = d.id AND e.id < 3 WHERE d.id > 3 OR e.id < 3 ORDER BY 1, 2;

-- upsert, replace, returning
CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER, n INTEGER DEFAULT 0) WITHOUT ROWID;
INSERT INTO kv VALUES ('a', 1, 0), ('b', 2, 0);
INSERT INTO kv(k, v) VALUES ('a', 10) ON CONFLICT(k) DO UPDATE SET v = excluded.v, n = n + 1;
INSERT INTO kv(k, v) VALUES ('c', 3) ON CONFLICT DO NOTHING;
INSERT INTO kv(k, v) VALUES ('c', 4) ON CONFLICT DO NOTHING;
INSERT OR REPLACE INTO kv VALUES ('b', 20, 5);
INSERT OR IGNORE INTO kv VALUES ('b', 30, 6);
UPDATE kv SET v = v * 2 WHERE k > 'a' RETURNING k, v;
DELETE FROM kv WHERE v > 100 RETURNING *;
SELECT * FROM kv ORDER BY k;
INSERT INTO kv VALUES ('a', 0, 0);
REPLACE INTO kv VALUES ('z', NULL, NULL);
SELECT k, v, n FROM kv ORDER BY k DESC;

-- updates and deletes through the triggers, with foreign keys
UPDATE emp SET salary = salary + 100 WHERE dept_id = 2 AND id % 50 = 0;
UPDATE emp SET salary = salary WHERE id = 3;
UPDATE emp SET salary = salary * 2 WHERE id IN (SELECT id FROM emp WHERE dept_id = 4 ORDER BY id LIMIT 5);
UPDATE emp SET salary = 1 WHERE id IN (SELECT id FROM emp ORDER BY id DESC LIMIT 2);
DELETE FROM emp WHERE id = 1;
SELECT count(*) FROM emp;
DELETE FROM emp WHERE id > 1990;
DELETE FROM emp WHERE id IN (1980, 1981) ;
SELECT what, old_val, new_val FROM audit ORDER BY seq DESC LIMIT 8;
SELECT count(*), min(seq), max(seq) FROM audit;
SELECT name, seq FROM sqlite_sequence;
DELETE FROM dept WHERE name = 'legal';
SELECT count(*) FROM emp WHERE dept_id IS NULL;
INSERT INTO emp(name, dept_id) VALUES ('nodept', 99);
INSERT INTO dept_stats(name, total) VALUES ('viaview', 7);
SELECT name, budget FROM dept ORDER BY id;
INSERT INTO dept(name, budget) VALUES ('bad', -1);
INSERT INTO dept(name, budget) VALUES ('eng', 1);
INSERT INTO emp(id, name) VALUES (2, 'dup');
INSERT INTO emp(name) VALUES (NULL);

-- transactions and savepoints
BEGIN;
INSERT INTO dept(name, budget) VALUES ('tx1', 1);
SAVEPOINT sp1;
INSERT INTO dept(name, budget) VALUES ('tx2', 2);
SAVEPOINT sp2;
UPDATE dept SET budget = 99 WHERE name = 'tx1';
ROLLBACK TO sp2;
RELEASE sp2;
ROLLBACK TO sp1;
SELECT name, budget FROM dept WHERE name LIKE 'tx%';
COMMIT;
BEGIN IMMEDIATE;
DELETE FROM audit WHERE seq % 2 = 0;
ROLLBACK;
SELECT count(*) FROM audit;
BEGIN EXCLUSIVE;
UPDATE emp SET hired = date(hired, '+1 month') WHERE id % 100 = 0;
COMMIT;
SELECT id, hired FROM emp WHERE id % 400 = 0 ORDER BY id;

-- JSON
CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT CHECK (json_valid(body)));
INSERT INTO docs(body) VALUES
  ('{"name":"alpha","tags":["x","y"],"n":1,"nested":{"a":[1,2,{"b":null}]}}'),
  ('{"name":"beta","tags":[],"n":2.5,"flag":true}'),
  ('[1,2,3,"four",{"five":5}]'),
  ('"just a string"'),
  ('{"unicode":"\u00e9\ud83d\ude00","esc":"a\"b\\c\n"}');
INSERT INTO docs(body) VALUES ('{bad json');
SELECT id, json_type(body), json_array_length(body), json_extract(body, '$.name'), body ->> '$.n', body -> '$.tags' FROM docs ORDER BY id;
SELECT json_extract(body, '$.nested.a[2].b'), json_extract(body, '$.nested.a[#-1]'), json_extract(body, '$.tags[0]', '$.n') FROM docs WHERE id = 1;
SELECT d.id, j.key, j.value, j.type, j.path FROM docs d, json_each(d.body) j WHERE d.id IN (1, 3) ORDER BY d.id, j.id;
SELECT j.fullkey, j.atom FROM docs, json_tree(docs.body) j WHERE docs.id = 1 ORDER BY j.id;
SELECT json_object('a', 1, 'b', json_array(1, 2, 'x'), 'c', NULL, 'd', json('{"e":[]}'));
SELECT json_set(body, '$.n', 99, '$.new', 'v'), json_insert(body, '$.n', 0), json_replace(body, '$.name', 'B'), json_remove(body, '$.tags', '$.flag') FROM docs WHERE id = 2;
SELECT json_patch('{"a":1,"b":{"c":2}}', '{"b":{"c":null,"d":3},"e":4}'), json_quote('x"y'), json_quote(3.5), json_valid('{"a":}'), json('  [1 , 2]  ');
SELECT json_group_array(id), json_group_object(name, budget) FROM dept;
SELECT json_extract('{"a":"\u0041"}', '$.a'), json_array_length('[[],[[]]]', '$[1]'), json_type('{"a":[1]}', '$.a[0]'), json_valid('[1,2');
SELECT body FROM docs WHERE json_extract(body, '$.flag') = 1;
UPDATE docs SET body = json_set(body, '$.n', body ->> '$.n' + 1) WHERE json_type(body) = 'object' AND body ->> '$.n' IS NOT NULL;
SELECT id, body ->> 'n' FROM docs ORDER BY id;

-- FTS5 and R-tree and other virtual tables
CREATE VIRTUAL TABLE ft USING fts5(title, body, tokenize = 'porter unicode61');
INSERT INTO ft(title, body) SELECT name, 'employee number ' || id || CASE WHEN id % 3 = 0 THEN ' runs quickly' ELSE ' walked slowly home' END FROM emp WHERE id <= 300;
SELECT count(*) FROM ft WHERE ft MATCH 'run';
SELECT title, bm25(ft) FROM ft WHERE ft MATCH 'walk AND home NOT slowly' ORDER BY rank LIMIT 3;
SELECT title, highlight(ft, 1, '[', ']'), snippet(ft, 1, '<', '>', '...', 3) FROM ft WHERE ft MATCH 'title:emp00012*' ORDER BY rowid;
SELECT count(*) FROM ft WHERE ft MATCH '"employee number" OR NEAR(runs quickly, 2)';
INSERT INTO ft(ft) VALUES ('optimize');
INSERT INTO ft(ft) VALUES ('integrity-check');
DELETE FROM ft WHERE rowid % 2 = 0;
SELECT count(*) FROM ft WHERE ft MATCH 'employee';
CREATE VIRTUAL TABLE f4 USING fts4(content, tokenize = porter);
INSERT INTO f4 VALUES ('the quick brown fox'), ('jumped over the lazy dog'), ('quick dogs jump');
SELECT rowid, offsets(f4), matchinfo(f4) IS NOT NULL FROM f4 WHERE f4 MATCH 'quick OR jump' ORDER BY rowid;
CREATE VIRTUAL TABLE rt USING rtree(id, minx, maxx, miny, maxy);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
INSERT INTO rt SELECT i, i % 20, i % 20 + 1.5, i / 20, i / 20 + 1.5 FROM n;
SELECT count(*) FROM rt WHERE minx >= 5 AND maxx <= 10 AND miny >= 3 AND maxy <= 8;
SELECT id FROM rt WHERE minx > 18 AND miny > 18 ORDER BY id;
DELETE FROM rt WHERE id % 3 = 0;
SELECT count(*) FROM rt WHERE minx < 2;
SELECT rtreecheck('rt');
SELECT count(*) FROM pragma_table_info('emp');
SELECT name, type FROM pragma_table_xinfo('kv') ORDER BY cid;
SELECT name FROM dbstat WHERE aggregate = 1 AND name = 'emp';
SELECT count(*) FROM generate_series(1, 10) LIMIT 1;

-- schema changes
ALTER TABLE emp ADD COLUMN grade INTEGER DEFAULT 3 CHECK (grade BETWEEN 0 AND 9);
ALTER TABLE emp RENAME COLUMN hired TO start_date;
ALTER TABLE audit RENAME TO audit_log;
CREATE TABLE tmp_drop(a, b, c);
ALTER TABLE tmp_drop DROP COLUMN b;
SELECT sql FROM sqlite_schema WHERE name IN ('emp', 'tmp_drop', 'emp_upd') ORDER BY name;
DROP TABLE tmp_drop;
CREATE TABLE gen(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED, c TEXT AS (printf('<%d>', a)) VIRTUAL);
INSERT INTO gen(a) VALUES (1), (2), (NULL);
SELECT * FROM gen ORDER BY a;
CREATE INDEX emp_expr ON emp(lower(name), salary / 100) WHERE salary > 2000;
SELECT count(*) FROM emp WHERE lower(name) = 'emp00100' AND salary > 2000;
CREATE UNIQUE INDEX IF NOT EXISTS kv_v ON kv(v);
CREATE TEMP TABLE t1 AS SELECT id, name FROM emp WHERE id < 50;
CREATE TEMP VIEW tv AS SELECT count(*) AS c FROM t1;
SELECT * FROM tv;
CREATE TABLE strict_t(i INTEGER, r REAL, t TEXT, b BLOB, a ANY) STRICT;
INSERT INTO strict_t VALUES (1, 2, 'x', x'01', 3.5);
INSERT INTO strict_t VALUES ('abc', 1, 1, 1, 1);
SELECT typeof(i), typeof(r), typeof(a) FROM strict_t;
ANALYZE;
SELECT tbl, idx FROM sqlite_stat1 ORDER BY tbl, idx;
EXPLAIN QUERY PLAN SELECT * FROM emp WHERE dept_id = 2 AND salary > 3000;
EXPLAIN SELECT 1 + 1;
SELECT name, count(*) FROM (SELECT name FROM emp ORDER BY salary, name) GROUP BY substr(name, 1, 6) LIMIT 3;
REINDEX emp_name;
PRAGMA integrity_check;
PRAGMA quick_check;
PRAGMA foreign_key_check;
PRAGMA index_list('emp');
PRAGMA index_info('emp_dept');
PRAGMA compile_options;
PRAGMA journal_mode = WAL;
INSERT INTO audit_log(what) VALUES ('wal 1'), ('wal 2');
PRAGMA wal_checkpoint(TRUNCATE);
PRAGMA journal_mode = DELETE;
VACUUM;
PRAGMA page_count;
PRAGMA freelist_count;

-- a second database, attached
ATTACH ':memory:' AS aux;
CREATE TABLE aux.copy AS SELECT * FROM main.emp WHERE id < 100;
SELECT count(*) FROM aux.copy JOIN main.dept ON dept.id = copy.dept_id;
DETACH aux;

-- shell commands
.mode csv
SELECT id, name, salary FROM emp WHERE id < 4;
.mode json
SELECT id, name, hex(notes) AS notes FROM emp WHERE id IN (5, 6, 7);
.mode box
SELECT * FROM dept ORDER BY id LIMIT 3;
.mode markdown
SELECT k, v FROM kv ORDER BY k;
.mode insert dept
SELECT * FROM dept WHERE id < 3;
.mode line
SELECT * FROM gen WHERE a = 1;
.mode list
.schema dept
.indexes emp
.tables
.dump kv
.nullvalue NULL
SELECT NULL, 1;
.print done
