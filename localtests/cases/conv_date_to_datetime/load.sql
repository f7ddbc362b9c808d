UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d = CURDATE() - INTERVAL FLOOR(RAND() * 1000) DAY, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET dn = '9999-12-31';
INSERT INTO gl_test (id, d, dn) VALUES (FLOOR(2001 + RAND() * 1000), '1970-01-01', '2038-01-19');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
