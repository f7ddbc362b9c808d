CREATE TABLE gl_test (
  k VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL PRIMARY KEY,
  val INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (k, val) SELECT CONCAT(ELT(1 + seq % 4, 'Key', 'kEY', 'ÄÖÜ', 'straße'), '-', seq), seq FROM seq_1_to_2000;
