UPDATE gl_test SET old_name = CONCAT('r', FLOOR(RAND() * 1000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET old_name = NULL WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, old_name) VALUES (FLOOR(2001 + RAND() * 1000), 'ins');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
