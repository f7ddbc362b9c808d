UPDATE gl_test JOIN (SELECT CONCAT('key-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET gl_test.k = UPPER(gl_test.k), v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('KEY-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET gl_test.k = CONCAT(gl_test.k, ' '), v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('key-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET v = v + 1;
INSERT INTO gl_test (k, n) VALUES (CONCAT('new-', FLOOR(RAND() * 100000)), 7);
DELETE gl_test FROM gl_test JOIN (SELECT CONCAT('KEY-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1;
