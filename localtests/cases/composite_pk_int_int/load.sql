UPDATE gl_test SET v = v + 1, payload = MD5(RAND()) WHERE a = (SELECT FLOOR(RAND() * 50)) AND b = (SELECT FLOOR(RAND() * 50));
UPDATE gl_test SET v = v - 1 WHERE a = (SELECT FLOOR(RAND() * 50));
INSERT INTO gl_test (a, b, payload) VALUES (FLOOR(RAND() * 60), FLOOR(50 + RAND() * 20), 'ins');
DELETE FROM gl_test WHERE a = (SELECT FLOOR(RAND() * 60)) AND b = (SELECT FLOOR(RAND() * 70));
