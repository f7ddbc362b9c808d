UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b = CONVERT(CONCAT(_utf8mb4'ñ', FLOOR(RAND() * 1000)) USING binary), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET vb = NULL;
INSERT INTO gl_test (id, b, vb) VALUES (FLOOR(2001 + RAND() * 1000), X'C3A9', X'E282AC');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
