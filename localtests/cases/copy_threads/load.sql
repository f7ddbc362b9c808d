UPDATE gl_test JOIN (SELECT ELT(FLOOR(1 + RAND() * 6), 'alpha', 'Beta', 'gamma', 'Δelta', 'épsilon', 'zeta') AS r1, FLOOR(RAND() * 1000) AS r2) x ON gl_test.tenant = x.r1 AND gl_test.n = x.r2 SET v = v + 1, val = val + 1;
UPDATE gl_test JOIN (SELECT FLOOR(RAND() * 1000) AS r1) x ON gl_test.tenant = 'GAMMA' AND gl_test.n = x.r1 SET s = LEFT(SHA2(RAND(), 256), 32);
INSERT INTO gl_test (tenant, n, val) VALUES (ELT(FLOOR(1 + RAND() * 4), 'eta', 'Θeta', 'iota', 'Epsilon'), FLOOR(RAND() * 1200), 1);
DELETE gl_test FROM gl_test JOIN (SELECT ELT(FLOOR(1 + RAND() * 6), 'ALPHA', 'beta', 'gamma', 'delta', 'epsilon', 'eta') AS r1, FLOOR(RAND() * 1200) AS r2) x ON gl_test.tenant = x.r1 AND gl_test.n = x.r2;
