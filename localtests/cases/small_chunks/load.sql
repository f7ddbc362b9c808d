UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1, s = LEFT(SHA2(RAND(), 256), 32);
UPDATE gl_test SET a = -a WHERE id >= (SELECT FLOOR(1 + RAND() * 3000)) ORDER BY id LIMIT 5;
INSERT INTO gl_test (id, a, s) VALUES (FLOOR(3001 + RAND() * 1000), 0, 'ins');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 4000) AS r1) x ON gl_test.id = x.r1;
