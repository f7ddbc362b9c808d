SELECT COUNT(*) = 0 FROM gl_test WHERE extra <> 7
