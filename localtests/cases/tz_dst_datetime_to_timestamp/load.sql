UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET dt = '2021-03-28 01:00:00' + INTERVAL IF(RAND() < 0.5, 0, 120) MINUTE + INTERVAL FLOOR(RAND() * 60) MINUTE, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET dn = '2021-10-31 01:30:00' + INTERVAL FLOOR(RAND() * 120) MINUTE;
INSERT INTO gl_test (id, dt, dn) VALUES (FLOOR(2001 + RAND() * 1000), '2021-10-31 02:30:00', '2021-03-28 03:00:00');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
