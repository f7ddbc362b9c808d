UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET e = ELT(FLOOR(1 + RAND() * 4), '', 'small', 'medium', 'large');
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET s = ELT(FLOOR(1 + RAND() * 4), '', 'a,b,c,d', 'd', 'a'), s64 = 'a64';
INSERT INTO gl_test (id, e, e2, s, s64) VALUES (FLOOR(2001 + RAND() * 1000), '', NULL, '', '');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
