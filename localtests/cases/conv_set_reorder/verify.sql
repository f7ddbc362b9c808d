SELECT COUNT(*) = 0 FROM gl_test WHERE FIND_IN_SET('w', s);
