UPDATE gl_test JOIN (SELECT UNHEX(LEFT(SHA2(FLOOR(1 + RAND() * 2000), 256), 32)) AS r1) x ON gl_test.uid = x.r1 SET v = v + 1;
INSERT INTO gl_test (uid, a) VALUES (UNHEX(LEFT(SHA2(RAND(), 256), 32)), NULL);
DELETE gl_test FROM gl_test JOIN (SELECT UNHEX(LEFT(SHA2(FLOOR(1 + RAND() * 2000), 256), 32)) AS r1) x ON gl_test.uid = x.r1;
