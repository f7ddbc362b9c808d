UPDATE gl_test SET j = JSON_SET(j, '$.n', FLOOR(RAND() * 100000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET jn = JSON_ARRAY_APPEND(COALESCE(jn, '[]'), '$', 'x\\y') WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, j, jn) VALUES (FLOOR(2001 + RAND() * 1000), '{"n": 0, "nested": {"k": [1, {"z": null}]}}', 'null');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
