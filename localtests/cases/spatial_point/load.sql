UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET p = POINT(RAND() * 180, RAND() * 90), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET g = ST_GeomFromText('MULTIPOINT(1 1, 2 2, 3 3)');
INSERT INTO gl_test (id, p, g) VALUES (FLOOR(2001 + RAND() * 1000), POINT(0, 0), NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
