UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b = UNHEX('FF00000000000000'), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET b16 = UNHEX('00'), b = UNHEX('00');
INSERT INTO gl_test (id, b, b16, uk) VALUES (FLOOR(2001 + RAND() * 1000), UNHEX('AB'), UNHEX('ABCD00'), UNHEX(CONCAT(HEX(FLOOR(2001 + RAND() * 1000)), '00')));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
