UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET phone = CONCAT('+44', FLOOR(RAND() * 1000000000));
INSERT INTO gl_test (id, email, phone) VALUES (FLOOR(2001 + RAND() * 1000), CONCAT('new', FLOOR(RAND() * 1000000), '@example.com'), NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
