UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET a = a - 1, b = CONCAT('x', FLOOR(RAND() * 100)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET c = NOW(), d = RAND();
INSERT INTO gl_test (id, a, b, c, d) VALUES (FLOOR(2001 + RAND() * 1000), 1, 'i', NULL, NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
