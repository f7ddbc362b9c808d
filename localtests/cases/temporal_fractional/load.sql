UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET dt = NOW(6), ts = NOW(6), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET tm = '-00:00:00.000001', dt3 = '2000-01-01 00:00:00.001', ts0 = '2021-03-28 02:30:00';
INSERT INTO gl_test (id, d, tm, tm0, dt, dt3, ts, ts0) VALUES (FLOOR(2001 + RAND() * 1000), '9999-12-31', '12:34:56.789012', '-01:00:00', '1000-01-01 00:00:00.000000', NULL, '1970-01-01 05:30:01.000001', NOW());
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
