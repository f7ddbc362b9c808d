SELECT COUNT(*) = 1 FROM gl_test WHERE id = 3004 AND s = 7;
