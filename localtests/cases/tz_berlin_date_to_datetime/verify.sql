SELECT COUNT(*) = SUM(x = 3) FROM gl_test;
