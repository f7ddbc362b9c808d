UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET j = JSON_SET(j, '$.d', CAST(RAND() * 1000 AS DECIMAL(10,3))), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET j = JSON_REPLACE(j, '$.a[3].deep[1]', CAST(RAND() * 100 AS DECIMAL(20,12))), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET jt = JSON_ARRAY(CAST(RAND() AS DECIMAL(8,8)), 0.10, RAND()), v = v + 1;
INSERT INTO gl_test (id, j, jt) VALUES (FLOOR(2001 + RAND() * 1000), JSON_OBJECT('d', 0.000, 'a', JSON_ARRAY(-1.10)), JSON_ARRAY(3.000));
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
