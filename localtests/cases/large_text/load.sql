UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 300) AS r1) x ON gl_test.id = x.r1 SET lt = REPEAT('Ω', 70000), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 300) AS r1) x ON gl_test.id = x.r1 SET mb = REPEAT(UNHEX('FF00'), 40000);
INSERT INTO gl_test (id, lt, mb) VALUES (FLOOR(301 + RAND() * 100), '', UNHEX(''));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 400) AS r1) x ON gl_test.id = x.r1;
