CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  a INT NOT NULL,
  b VARCHAR(20) NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, a, b) SELECT seq, seq * 2, IF(seq % 3, CONCAT('b', seq), NULL) FROM seq_1_to_2000;
