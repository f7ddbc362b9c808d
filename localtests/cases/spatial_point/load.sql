UPDATE gl_test SET p = POINT(RAND() * 180, RAND() * 90), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET g = ST_GeomFromText('MULTIPOINT(1 1, 2 2, 3 3)') WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, p, g) VALUES (FLOOR(2001 + RAND() * 1000), POINT(0, 0), NULL);
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
