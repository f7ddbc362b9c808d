UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET m = RAND() * 1000 - 500, v = v + 1;
INSERT INTO gl_test (id, m, d) VALUES (FLOOR(2001 + RAND() * 1000), 0.005, '2024-02-29');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
