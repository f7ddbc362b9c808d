UPDATE gl_test SET v = v + 1 WHERE k = (SELECT CONCAT('KEY-', FLOOR(1 + RAND() * 2000)));
UPDATE gl_test SET val = -val WHERE k = (SELECT CONCAT('äöü-', FLOOR(1 + RAND() * 2000)));
UPDATE gl_test SET k = CONCAT('moved-', k) WHERE k = (SELECT CONCAT('key-', FLOOR(1 + RAND() * 2000)));
INSERT INTO gl_test (k, val) VALUES (CONCAT(ELT(FLOOR(1 + RAND() * 3), 'NeW', 'new', 'NEW'), '-', FLOOR(RAND() * 500)), 0);
DELETE FROM gl_test WHERE k = (SELECT CONCAT('STRASSE-', FLOOR(1 + RAND() * 2000)));
DELETE FROM gl_test WHERE k = (SELECT CONCAT('straße-', FLOOR(1 + RAND() * 2000)));
