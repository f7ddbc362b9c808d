UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET vc = CONCAT('更新 ', FLOOR(RAND() * 1000)), v = v + 1;
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET t = CONCAT(COALESCE(t, ''), '表'), c = '鑫';
INSERT INTO gl_test (id, c, vc, t) VALUES (FLOOR(2001 + RAND() * 1000), '插入', '新行', '内容');
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * 3000) AS r1) x ON gl_test.id = x.r1;
