UPDATE gl_test SET y = 1901 + FLOOR(RAND() * 255), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET yn = 0 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, y, yn) VALUES (FLOOR(2001 + RAND() * 1000), 2155, 1901);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
