UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d = '2021-03-28', ts = '2021-03-28 03:30:00', v = v + 1;
INSERT INTO gl_test (id, d, ts) VALUES (FLOOR(2001 + RAND() * 1000), '2021-10-31', '2021-10-31 02:30:00');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
