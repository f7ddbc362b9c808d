UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET a = FLOOR(RAND() * 100000), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b = NULL, c = NULL;
INSERT INTO gl_test (id, a, b, c) VALUES (FLOOR(2001 + RAND() * 1000), -1, 'x', '2000-02-29');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
