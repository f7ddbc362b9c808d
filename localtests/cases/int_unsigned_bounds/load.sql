UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ti = 255, si = 65535, mi = 16777215, i = 4294967295, bi = 18446744073709551615;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET ti = 128, si = 32768, mi = 8388608, i = 2147483648, bi = 9223372036854775808;
INSERT INTO gl_test (id, ti, si, mi, i, bi) VALUES (FLOOR(4294967295 - RAND() * 1000), 255, 65535, 16777215, 4294967295, 18446744073709551615);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1;
