SELECT COUNT(*) > 0 AND COUNT(*) = SUM(b = 5) FROM gl_test
