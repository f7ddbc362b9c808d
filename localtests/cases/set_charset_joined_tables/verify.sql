-- the index the CREATE INDEX made, read from the server (not from the statement as the tool reads it)
SELECT COUNT(*) = 2 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tag' AND INDEX_NAME = 'ix_label';
