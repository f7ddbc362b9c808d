UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
INSERT INTO gl_test (name) VALUES (CONCAT('auto', FLOOR(RAND() * 1000)));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1;
