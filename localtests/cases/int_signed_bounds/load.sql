UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ti = -128, si = -32768, mi = -8388608, i = -2147483648, bi = -9223372036854775808;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ti = 127, si = 32767, mi = 8388607, i = 2147483647, bi = 9223372036854775807;
INSERT INTO gl_test (id, ti, si, mi, i, bi) VALUES (FLOOR(2001 + RAND() * 1000), -128, 32767, -8388608, 2147483647, -9223372036854775808);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
