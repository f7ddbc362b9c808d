UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET name = CONCAT('upd-', FLOOR(RAND() * 1000)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET qty = qty + 1;
INSERT INTO gl_test (id, name, qty) VALUES (FLOOR(2001 + RAND() * 1000), 'inserted', 5);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
