UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET code = CONCAT('U', FLOOR(RAND() * 1000000));
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET id = id + 10000;
INSERT INTO gl_test (id, code) VALUES (FLOOR(3001 + RAND() * 1000), CONCAT('I', FLOOR(RAND() * 1000000)));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 4000) AS r1) x ON gl_test.id = x.r1;
