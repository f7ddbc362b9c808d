UPDATE gl_test SET name = CONCAT('Größe ', FLOOR(RAND() * 1000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET descr = 'naïve façade', code = 'éüß' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, name, descr, code) VALUES (FLOOR(2001 + RAND() * 1000), 'Àà', '¿¡', 'abc');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
