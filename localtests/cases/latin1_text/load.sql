UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET vc = CONCAT('Ünïcödé ', FLOOR(RAND() * 1000)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t = CONCAT(t, ' µ°©'), c = 'éèêë';
INSERT INTO gl_test (id, c, vc, t) VALUES (FLOOR(2001 + RAND() * 1000), 'Å', 'àáâãäå', 'þðæ');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
