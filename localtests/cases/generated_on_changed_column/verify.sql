SELECT COUNT(*) = SUM(total = price * qty AND label = CONCAT('p', price)) FROM gl_test;
