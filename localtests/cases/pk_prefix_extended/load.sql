UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = CONCAT('u', FLOOR(RAND() * 100)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET grp = FLOOR(RAND() * 10);
INSERT INTO gl_test (id, grp, s) VALUES (FLOOR(2001 + RAND() * 1000), 3, 'new');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
