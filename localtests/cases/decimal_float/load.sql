UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d1 = d1 + 0.000001, f = f * 1.5, db = db / 3;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d2 = RAND() * 1000000, f = RAND(), db = RAND() * 1e300;
INSERT INTO gl_test (id, d1, d2, d3, f, db) VALUES (FLOOR(2001 + RAND() * 1000), -99999999999999.999999, 0.000000000000000000000000000001, 99999, 1.17549435e-38, 2.2250738585072014e-308);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
