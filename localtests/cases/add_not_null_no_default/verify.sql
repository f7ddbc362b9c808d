SELECT COUNT(*) = SUM(n = 0 AND u = 0 AND s = '' AND tx = '' AND e = 'p' AND st = '' AND y = 0 AND f = 0) FROM gl_test;
SELECT MAX(id) > 2000 FROM gl_test;
