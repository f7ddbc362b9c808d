CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  n INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, name, n, v) SELECT seq, CONCAT('a fairly long name ', seq), seq * 1000, seq % 10 FROM seq_1_to_1000;
