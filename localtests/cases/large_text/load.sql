UPDATE gl_test SET lt = REPEAT('Ω', 70000), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 300));
UPDATE gl_test SET mb = REPEAT(UNHEX('FF00'), 40000) WHERE id = (SELECT FLOOR(1 + RAND() * 300));
INSERT INTO gl_test (id, lt, mb) VALUES (FLOOR(301 + RAND() * 100), '', UNHEX(''));
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 400));
