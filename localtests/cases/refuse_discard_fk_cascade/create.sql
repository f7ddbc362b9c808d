CREATE TABLE gl_parent (
  id INT NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
INSERT INTO gl_parent (id) SELECT seq FROM seq_1_to_10;
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  parent_id INT NOT NULL,
  v INT NOT NULL DEFAULT 0,
  CONSTRAINT fk_parent FOREIGN KEY (parent_id) REFERENCES gl_parent (id) ON DELETE CASCADE
) ENGINE=InnoDB;
INSERT INTO gl_test (id, parent_id) SELECT seq, 1 + seq % 10 FROM seq_1_to_500;
