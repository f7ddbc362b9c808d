UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET n = FLOOR(RAND() * 30000), s = CONCAT('u', FLOOR(RAND() * 1000)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET e = 'b', d = '2024-02-29';
INSERT INTO gl_test (id, n, s, e, d) VALUES (FLOOR(2001 + RAND() * 1000), -32768, '', 'a', '1000-01-01');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
