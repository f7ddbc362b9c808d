UPDATE gl_test SET a = FLOOR(RAND() * 13), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET b = MD5(RAND()), t = NULL WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, a, b, t) VALUES (FLOOR(2001 + RAND() * 1000), 1, 'x', 'y');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
