UPDATE gl_test SET v = v + 1, c = CONCAT('u', FLOOR(RAND() * 100)) WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET b = b + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, b, c) VALUES (FLOOR(2001 + RAND() * 1000), 3, NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
