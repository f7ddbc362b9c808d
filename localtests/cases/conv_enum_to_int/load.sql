UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET e = ELT(1 + FLOOR(RAND() * 3), 'x', 'y', 'z'), s = 'a,c', e2 = '3', v = v + 1;
INSERT INTO gl_test (id, e, s, e2) VALUES (FLOOR(2001 + RAND() * 1000), 'y', 'b', '20');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
