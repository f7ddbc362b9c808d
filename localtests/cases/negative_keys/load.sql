UPDATE gl_test JOIN (SELECT FLOOR(-1000 + RAND() * 2001) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test SET a = -a WHERE id = -2147483648 OR id = (SELECT FLOOR(-1000 + RAND() * 2001));
INSERT INTO gl_test (id, a) VALUES (FLOOR(-3000 + RAND() * 2000), 0);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(-3000 + RAND() * 4000) AS r1) x ON gl_test.id = x.r1;
