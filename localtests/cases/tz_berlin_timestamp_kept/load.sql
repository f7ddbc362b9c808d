UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = FROM_UNIXTIME(1635640200 + FLOOR(RAND() * 7200)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = '2021-10-31 02:30:00', s = 'fall';
INSERT INTO gl_test (id, ts, s) VALUES (FLOOR(2001 + RAND() * 1000), FROM_UNIXTIME(1616893200), 'spring');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
