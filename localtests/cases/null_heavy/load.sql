UPDATE gl_test SET a = NULL, b = NULL, c = NULL, d = NULL, e = NULL, f = NULL, g = NULL, h = NULL, v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET a = 0, b = '', e = UNHEX(''), h = b'0' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id) VALUES (FLOOR(2001 + RAND() * 1000));
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
