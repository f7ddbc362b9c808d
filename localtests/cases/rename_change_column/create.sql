CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(50) NOT NULL,
  qty INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, name, qty) SELECT seq, CONCAT('name-', seq), seq % 17 FROM seq_1_to_2000;
