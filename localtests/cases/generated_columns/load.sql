UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET a = a + 1, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b = FLOOR(RAND() * 100), s = CONCAT('u', FLOOR(RAND() * 100));
INSERT INTO gl_test (id, a, b, s) VALUES (FLOOR(2001 + RAND() * 1000), 1, 2, 'new');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
