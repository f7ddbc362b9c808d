UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET f = RAND() * 1000, fu = RAND() * 100, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET f = NULL;
INSERT INTO gl_test (id, f, fu) VALUES (FLOOR(2001 + RAND() * 1000), 0.1, 0.1);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
