UPDATE gl_test JOIN (SELECT CONCAT('KEY-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('äöü-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET val = -val;
UPDATE gl_test JOIN (SELECT CONCAT('key-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1 SET k = CONCAT('moved-', k);
INSERT INTO gl_test (k, val) VALUES (CONCAT(ELT(FLOOR(1 + RAND() * 3), 'NeW', 'new', 'NEW'), '-', FLOOR(RAND() * 500)), 0);
DELETE gl_test FROM gl_test JOIN (SELECT CONCAT('STRASSE-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1;
DELETE gl_test FROM gl_test JOIN (SELECT CONCAT('straße-', FLOOR(1 + RAND() * 2000)) AS r1) x ON gl_test.k = x.r1;
