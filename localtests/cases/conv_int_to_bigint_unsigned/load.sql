UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET n = FLOOR(RAND() * 2147483647), v = v + 1;
INSERT INTO gl_test (id, n) VALUES (FLOOR(2001 + RAND() * 1000), 7);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
