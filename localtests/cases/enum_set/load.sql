UPDATE gl_test SET e = ELT(FLOOR(1 + RAND() * 4), '', 'small', 'medium', 'large') WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET s = ELT(FLOOR(1 + RAND() * 4), '', 'a,b,c,d', 'd', 'a'), s64 = 'a64' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, e, e2, s, s64) VALUES (FLOOR(2001 + RAND() * 1000), '', NULL, '', '');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
