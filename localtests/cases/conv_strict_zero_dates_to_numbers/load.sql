UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 400) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 100) * 4 AS r1) x ON gl_test.id = x.r1 - 3 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 100) * 4 AS r1) x ON gl_test.id = x.r1 - 2 SET v = v + 1;
