INSERT INTO gl_test (a) VALUES (CONCAT('row', FLOOR(RAND() * 1000)));
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 50) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 100) AS r1) x ON gl_test.id = x.r1;
