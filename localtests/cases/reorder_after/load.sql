UPDATE gl_test SET a = a - 1, b = CONCAT('x', FLOOR(RAND() * 100)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET c = NOW(), d = RAND() WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, a, b, c, d) VALUES (FLOOR(2001 + RAND() * 1000), 1, 'i', NULL, NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
