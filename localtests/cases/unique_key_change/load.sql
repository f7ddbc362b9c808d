UPDATE gl_test SET v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET phone = CONCAT('+44', FLOOR(RAND() * 1000000000)) WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, email, phone) VALUES (FLOOR(2001 + RAND() * 1000), CONCAT('new', FLOOR(RAND() * 1000000), '@example.com'), NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
