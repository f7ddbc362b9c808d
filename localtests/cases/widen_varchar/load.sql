UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = LEFT(LEFT(SHA2(RAND(), 256), 32), 10), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s2 = 'ééééééééé';
INSERT INTO gl_test (id, s, s2) VALUES (FLOOR(2001 + RAND() * 1000), '0123456789', NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
