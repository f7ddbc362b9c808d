UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET e = ELT(1 + FLOOR(RAND() * 3), 'b', 'c', 'd'), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET en = IF(RAND() < 0.5, 'x', 'y'), e = NULL;
INSERT INTO gl_test (id, e) VALUES (FLOOR(2001 + RAND() * 1000), 'd');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
