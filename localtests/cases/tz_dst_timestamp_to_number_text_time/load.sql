UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = FROM_UNIXTIME(1635640200 + FLOOR(RAND() * 7200)), ts_txt = FROM_UNIXTIME(1616893200 + RAND() * 7200), ts6_dec = NOW(6), ts_t = NOW(), v = v + 1;
INSERT INTO gl_test (id, ts, ts_txt, ts_t, ts6_dec, t) VALUES (FLOOR(2001 + RAND() * 1000), FROM_UNIXTIME(1616893200), NOW(3), FROM_UNIXTIME(1635638400), NOW(6), SEC_TO_TIME(FLOOR(RAND() * 80000)));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
