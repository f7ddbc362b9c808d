CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id) SELECT seq FROM seq_1_to_500;
CREATE TABLE gl_child (
  id INT NOT NULL PRIMARY KEY,
  test_id INT NOT NULL,
  CONSTRAINT fk_test FOREIGN KEY (test_id) REFERENCES gl_test (id)
) ENGINE=InnoDB;
INSERT INTO gl_child (id, test_id) SELECT seq, seq FROM seq_1_to_100;
