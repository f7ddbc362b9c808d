SELECT COUNT(*) = SUM(added = 'ñ') FROM gl_test
