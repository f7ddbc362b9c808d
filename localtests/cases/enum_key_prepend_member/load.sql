UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.n = x.r1 SET s = CONCAT('u', FLOOR(RAND() * 100)), v = v + 1;
INSERT INTO gl_test (e, n, s) VALUES (ELT(1 + FLOOR(RAND() * 3), 'b', 'c', 'd'), FLOOR(2001 + RAND() * 1000), 'new');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.n = x.r1;
