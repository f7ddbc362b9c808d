UPDATE gl_test JOIN (SELECT UNHEX(MD5(FLOOR(1 + RAND() * 2000))) AS r1) x ON gl_test.uid = x.r1 SET v = v + 1;
INSERT INTO gl_test (uid, a) VALUES (UNHEX(MD5(RAND())), NULL);
DELETE gl_test FROM gl_test JOIN (SELECT UNHEX(MD5(FLOOR(1 + RAND() * 2000))) AS r1) x ON gl_test.uid = x.r1;
