UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET dt = NOW() - INTERVAL FLOOR(RAND() * 100000) MINUTE, v = v + 1;
INSERT INTO gl_test (id, dt) VALUES (FLOOR(2001 + RAND() * 1000), '1999-12-31 23:59:59');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
