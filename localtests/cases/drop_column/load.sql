UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET gone1 = 'changed', gone2 = gone2 - 1, v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET keep1 = CONCAT('k', FLOOR(RAND() * 100)), keep2 = NULL;
INSERT INTO gl_test (id, keep1, gone1, keep2, gone2) VALUES (FLOOR(2001 + RAND() * 1000), 'ins', NULL, 0, 0);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
