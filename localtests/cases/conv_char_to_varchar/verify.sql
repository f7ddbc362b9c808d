SELECT COUNT(*) = 0 FROM gl_test WHERE c LIKE '% ';
