SELECT COUNT(*) = SUM(jv <=> JSON_VALUE(j, '$.n')) FROM gl_test
