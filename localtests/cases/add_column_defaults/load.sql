UPDATE gl_test SET v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (name) VALUES (CONCAT('auto', FLOOR(RAND() * 1000)));
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
