SELECT COUNT(*) = SUM(created = '2001-02-03' AND q = 1.5) FROM gl_test;
