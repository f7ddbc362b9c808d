UPDATE gl_test SET b = CONCAT('u', FLOOR(RAND() * 100)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, a, b) VALUES (FLOOR(2001 + RAND() * 1000), 1, NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
