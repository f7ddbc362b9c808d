UPDATE gl_test SET a = a + 1, v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET b = FLOOR(RAND() * 100), s = CONCAT('u', FLOOR(RAND() * 100)) WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, a, b, s) VALUES (FLOOR(2001 + RAND() * 1000), 1, 2, 'new');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
