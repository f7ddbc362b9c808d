SELECT COUNT(*) = 1 AND MIN(v) >= 1 FROM gl_test WHERE id = 1
