UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = CONCAT('u', FLOOR(RAND() * 100)), v = v + 1;
INSERT INTO gl_test (s) VALUES ('auto');
DELETE FROM gl_test ORDER BY id DESC LIMIT 1;
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
