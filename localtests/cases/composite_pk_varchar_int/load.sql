UPDATE gl_test SET v = v + 1 WHERE tenant = (SELECT ELT(FLOOR(1 + RAND() * 5), 'alpha', 'Beta', 'gamma', 'Δelta', 'épsilon')) AND n = (SELECT FLOOR(RAND() * 500));
UPDATE gl_test SET val = NULL WHERE tenant = 'ALPHA' AND n = (SELECT FLOOR(RAND() * 500));
INSERT INTO gl_test (tenant, n, val) VALUES (ELT(FLOOR(1 + RAND() * 3), 'zeta', 'Eta', 'θeta'), FLOOR(RAND() * 1000), 1);
DELETE FROM gl_test WHERE tenant = (SELECT ELT(FLOOR(1 + RAND() * 5), 'alpha', 'Beta', 'gamma', 'zeta', 'eta')) AND n = (SELECT FLOOR(RAND() * 1000));
