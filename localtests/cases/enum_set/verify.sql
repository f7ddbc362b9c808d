SELECT COUNT(*) = 1 FROM gl_test WHERE id = 5000 AND e = '' AND s = 'a'
