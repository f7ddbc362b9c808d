UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d = FLOOR(RAND() * 21) - 10 + 0.5, f = FLOOR(RAND() * 21) - 10 + 0.5, v = v + 1;
INSERT INTO gl_test (id, d, f) VALUES (FLOOR(2001 + RAND() * 1000), FLOOR(RAND() * 9) - 4 + 0.5, -2.5);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
