UPDATE gl_test SET gone1 = 'changed', gone2 = gone2 - 1, v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET keep1 = CONCAT('k', FLOOR(RAND() * 100)), keep2 = NULL WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, keep1, gone1, keep2, gone2) VALUES (FLOOR(2001 + RAND() * 1000), 'ins', NULL, 0, 0);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
