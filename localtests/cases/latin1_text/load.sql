UPDATE gl_test SET vc = CONCAT('Ünïcödé ', FLOOR(RAND() * 1000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET t = CONCAT(t, ' µ°©'), c = 'éèêë' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, c, vc, t) VALUES (FLOOR(2001 + RAND() * 1000), 'Å', 'àáâãäå', 'þðæ');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
