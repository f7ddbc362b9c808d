UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET a = FLOOR(RAND() * 13), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b = LEFT(SHA2(RAND(), 256), 32), t = NULL;
INSERT INTO gl_test (id, a, b, t) VALUES (FLOOR(2001 + RAND() * 1000), 1, 'x', 'y');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
