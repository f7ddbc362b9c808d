-- The primary key moves from utf8mb4_bin into utf8mb4_general_ci: 'key-1' and 'KEY-1' would be one
-- key there. No two rows collide (the load changes a key's case, never writes both spellings),
-- so the server's ALTER migrates and so must the tool, addressing the new table's rows by their
-- exact key bytes (doc/unique-keys.md).
CREATE TABLE gl_test (
  k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  n INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (k, n) SELECT CONCAT(IF(seq % 3 = 0, 'KEY-', 'key-'), seq), seq FROM seq_1_to_2000;
