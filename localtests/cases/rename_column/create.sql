CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  old_name VARCHAR(50) NULL,
  v INT NOT NULL DEFAULT 0,
  KEY ix_old (old_name)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, old_name) SELECT seq, IF(seq % 9 = 0, NULL, CONCAT('n', seq)) FROM seq_1_to_2000;
