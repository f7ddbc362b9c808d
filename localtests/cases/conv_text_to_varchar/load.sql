UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t = REPEAT('x', FLOOR(RAND() * 200)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET tt = ' ';
INSERT INTO gl_test (id, t, tt) VALUES (FLOOR(2001 + RAND() * 1000), '', 'trailing   ');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
