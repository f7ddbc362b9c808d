UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET j = JSON_SET(j, '$.n', FLOOR(RAND() * 100000)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET jn = JSON_ARRAY_APPEND(COALESCE(jn, '[]'), '$', 'x\\y');
INSERT INTO gl_test (id, j, jn) VALUES (FLOOR(2001 + RAND() * 1000), '{"n": 0, "nested": {"k": [1, {"z": null}]}}', 'null');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
