UPDATE gl_test JOIN (SELECT ELT(FLOOR(1 + RAND() * 5), 'alpha', 'Beta', 'gamma', 'Δelta', 'épsilon') AS r1, FLOOR(RAND() * 500) AS r2) x ON gl_test.tenant = x.r1 AND gl_test.n = x.r2 SET v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(RAND() * 500) AS r1) x ON gl_test.tenant = 'ALPHA' AND gl_test.n = x.r1 SET val = NULL;
INSERT INTO gl_test (tenant, n, val) VALUES (ELT(FLOOR(1 + RAND() * 3), 'zeta', 'Eta', 'θeta'), FLOOR(RAND() * 1000), 1);
DELETE gl_test FROM gl_test JOIN (SELECT ELT(FLOOR(1 + RAND() * 5), 'alpha', 'Beta', 'gamma', 'zeta', 'eta') AS r1, FLOOR(RAND() * 1000) AS r2) x ON gl_test.tenant = x.r1 AND gl_test.n = x.r2;
