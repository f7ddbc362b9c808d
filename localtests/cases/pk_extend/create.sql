CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  b INT NOT NULL,
  c VARCHAR(20) NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, b, c) SELECT seq, seq % 10, CONCAT('c', seq) FROM seq_1_to_2000;
