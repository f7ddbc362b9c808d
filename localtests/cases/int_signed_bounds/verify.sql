SELECT COUNT(*) = SUM(extra = 7) FROM gl_test
