UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = FROM_UNIXTIME(1635640200 + FLOOR(RAND() * 7200)), v = v + 1;
INSERT INTO gl_test (id, ts) VALUES (FLOOR(2001 + RAND() * 1000), FROM_UNIXTIME(1616893200));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
