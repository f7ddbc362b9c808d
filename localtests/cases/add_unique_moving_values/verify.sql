SELECT COUNT(*) = 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'gl_test' AND INDEX_NAME = 'uk_slot' AND NON_UNIQUE = 0;
SELECT COUNT(*) = 0 FROM gl_test WHERE id <= 5000 AND (slot - 1) DIV 5 <> (id - 1) DIV 5;
