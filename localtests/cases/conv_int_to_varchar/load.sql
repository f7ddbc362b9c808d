UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET n = FLOOR(RAND() * 4294967295) - 2147483648, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET n = NULL;
INSERT INTO gl_test (id, n) VALUES (FLOOR(2001 + RAND() * 1000), FLOOR(RAND() * 1000) - 500);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
