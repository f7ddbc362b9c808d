UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t = SEC_TO_TIME(FLOOR(RAND() * 86399)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t6 = '12:34:56.5';
INSERT INTO gl_test (id, t, t6) VALUES (FLOOR(2001 + RAND() * 1000), '23:59:59', '00:00:00.000001');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
