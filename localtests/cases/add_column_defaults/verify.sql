SELECT COUNT(*) = SUM(status = 'new' AND score = -1 AND note IS NULL AND flag = 1 AND at = '2001-01-01 00:00:00') FROM gl_test;
SELECT MAX(id) > 2000 FROM gl_test;
