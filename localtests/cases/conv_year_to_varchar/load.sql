UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET y = 0, y2 = 0, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET y = 1901 + FLOOR(RAND() * 250), y2 = 2001;
INSERT INTO gl_test (id, y, y2) VALUES (FLOOR(2001 + RAND() * 1000), 0, 0);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
