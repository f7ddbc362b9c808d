SELECT COUNT(*) = SUM(total = 0.5) FROM gl_test
