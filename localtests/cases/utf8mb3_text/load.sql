UPDATE gl_test SET vc = CONCAT('中文 ', FLOOR(RAND() * 1000)), v = v + 1 WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
UPDATE gl_test SET t = CONCAT(COALESCE(t, ''), ' €™'), c = 'ЖЖЖ' WHERE id = (SELECT FLOOR(1 + RAND() * 2000));
INSERT INTO gl_test (id, c, vc, t) VALUES (FLOOR(2001 + RAND() * 1000), 'ü', 'ﬁﬂ', '☂☃');
DELETE FROM gl_test WHERE id = (SELECT FLOOR(1 + RAND() * 3000));
