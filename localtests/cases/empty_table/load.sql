INSERT INTO gl_test (a) VALUES (CONCAT('row', FLOOR(RAND() * 1000)));
UPDATE gl_test SET v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 50));
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 100));
