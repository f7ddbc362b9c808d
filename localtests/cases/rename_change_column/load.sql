UPDATE gl_test SET name = CONCAT('upd-', FLOOR(RAND() * 1000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET qty = qty + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, name, qty) VALUES (FLOOR(2001 + RAND() * 1000), 'inserted', 5);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
