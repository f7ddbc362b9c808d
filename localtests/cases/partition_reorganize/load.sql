UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET a = a + 1, v = v + 1;
INSERT INTO gl_test (id, a) VALUES (2000 + FLOOR(1 + RAND() * 99), 1);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1;
