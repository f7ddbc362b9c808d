UPDATE gl_test SET v = v + 1 WHERE id = 1;
UPDATE gl_test SET a = CONCAT('only', FLOOR(RAND() * 10)) WHERE id = 1;
