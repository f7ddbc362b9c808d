UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET vb = UNHEX(SHA2(RAND(), 256)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET bl = CONCAT(UNHEX('000000'), UNHEX(LEFT(SHA2(RAND(), 256), 32))), mb = NULL;
INSERT INTO gl_test (id, vb, bl, mb) VALUES (FLOOR(2001 + RAND() * 1000), UNHEX('00'), UNHEX('0000'), UNHEX('5C275C22'));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
