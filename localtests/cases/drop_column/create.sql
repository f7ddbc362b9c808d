CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  keep1 VARCHAR(20) NOT NULL,
  gone1 TEXT NULL,
  keep2 INT NULL,
  gone2 INT NOT NULL,
  v INT NOT NULL DEFAULT 0,
  KEY ix_gone2 (gone2)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, keep1, gone1, keep2, gone2) SELECT seq, CONCAT('k', seq), REPEAT('x', seq % 100), seq, -seq FROM seq_1_to_2000;
