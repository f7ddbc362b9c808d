SELECT COUNT(*) > 0 FROM gl_test WHERE jt LIKE '[2.50, %';
