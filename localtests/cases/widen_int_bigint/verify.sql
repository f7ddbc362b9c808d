SELECT COUNT(*) = 3 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'gl_test' AND DATA_TYPE IN ('bigint', 'int') AND COLUMN_NAME IN ('id', 'n', 'u')
