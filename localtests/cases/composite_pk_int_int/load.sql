UPDATE gl_test JOIN (SELECT FLOOR(RAND() * 50) AS r1, FLOOR(RAND() * 50) AS r2) x ON gl_test.a = x.r1 AND gl_test.b = x.r2 SET v = v + 1, payload = LEFT(SHA2(RAND(), 256), 32);
UPDATE gl_test JOIN (SELECT FLOOR(RAND() * 50) AS r1) x ON gl_test.a = x.r1 SET v = v - 1;
INSERT INTO gl_test (a, b, payload) VALUES (FLOOR(RAND() * 60), FLOOR(50 + RAND() * 20), 'ins');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(RAND() * 60) AS r1, FLOOR(RAND() * 70) AS r2) x ON gl_test.a = x.r1 AND gl_test.b = x.r2;
