UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'é') AS r1) x ON gl_test.code = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'E') AS r1) x ON gl_test.code = x.r1 SET name = 'ñandú';
INSERT INTO gl_test (code, name) VALUES (CONCAT('Ωmega-', FLOOR(RAND() * 100000)), 'ω');
DELETE gl_test FROM gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'é') AS r1) x ON gl_test.code = x.r1;
