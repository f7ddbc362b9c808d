UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = NOW() - INTERVAL FLOOR(RAND() * 100000) MINUTE, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts3 = '2010-10-10 10:10:10.101';
INSERT INTO gl_test (id, ts, ts3) VALUES (FLOOR(2001 + RAND() * 1000), '1999-12-31 23:59:59', '2020-02-29 00:00:00');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
