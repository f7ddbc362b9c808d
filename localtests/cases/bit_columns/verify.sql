SELECT COUNT(*) = SUM(flag = 1) FROM gl_test
