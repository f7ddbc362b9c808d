UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ts = NOW(), dt = NOW(3), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET d = CURDATE(), ts = NULL;
INSERT INTO gl_test (id, ts, dt, d) VALUES (FLOOR(2001 + RAND() * 1000), '1999-12-31 23:59:59', '1999-12-31 23:59:59.999', '1999-12-31');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
