UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = CAST(FLOOR(RAND() * 2000000) - 1000000 AS CHAR), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = NULL;
INSERT INTO gl_test (id, s) VALUES (FLOOR(2001 + RAND() * 1000), '42');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
