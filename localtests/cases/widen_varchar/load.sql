UPDATE gl_test SET s = LEFT(MD5(RAND()), 10), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET s2 = 'ééééééééé' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, s, s2) VALUES (FLOOR(2001 + RAND() * 1000), '0123456789', NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
