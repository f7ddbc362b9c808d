-- Keys change their spelling but not their identity under utf8mb3_general_ci while the tool
-- runs (case, a trailing space): utf8mb4_bin tells those spellings apart, so the ghost must end
-- with the latest one only.
UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'é') AS r1) x ON gl_test.code = x.r1 SET gl_test.code = UPPER(gl_test.code), v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'é') AS r1) x ON gl_test.code = x.r1 SET gl_test.code = LOWER(gl_test.code), v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'E') AS r1) x ON gl_test.code = x.r1 SET gl_test.code = IF(gl_test.code LIKE '% ', TRIM(TRAILING ' ' FROM gl_test.code), CONCAT(gl_test.code, ' ')), v = v + 1;
UPDATE gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'E') AS r1) x ON gl_test.code = x.r1 SET name = 'ñandú';
INSERT INTO gl_test (code, name) VALUES (CONCAT('Ωmega-', FLOOR(RAND() * 100000)), 'ω');
DELETE gl_test FROM gl_test JOIN (SELECT CONCAT('Größe-', FLOOR(1 + RAND() * 2000), 'é') AS r1) x ON gl_test.code = x.r1;
