UPDATE gl_test SET a = a + 1, v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (a, b) VALUES (FLOOR(RAND() * 97), 'ins');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
