SELECT COUNT(*) = 0 FROM gl_test WHERE e = 'a' OR en = 'w';
