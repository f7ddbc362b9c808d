UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = CONCAT(_utf8mb4'Øre ', FLOOR(RAND() * 100)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t = _utf8mb4'¿qué?';
INSERT INTO gl_test (id, s, t) VALUES (FLOOR(2001 + RAND() * 1000), _utf8mb4'naïve', NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
