UPDATE gl_test SET v = v + 1, s = MD5(RAND()) WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
UPDATE gl_test SET a = -a WHERE id >= (SELECT FLOOR(1 + RAND() * 3000)) ORDER BY id LIMIT 5;
INSERT INTO gl_test (id, a, s) VALUES (FLOOR(3001 + RAND() * 1000), 0, 'ins');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 4000));
