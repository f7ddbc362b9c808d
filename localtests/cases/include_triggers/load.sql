UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1, note = LEFT(SHA2(RAND(), 256), 32);
INSERT INTO gl_test (id, v, note) VALUES (FLOOR(2001 + RAND() * 1000), 1, 'inserted');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
