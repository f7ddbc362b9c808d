-- Two joined latin1 tables converted to utf8mb4 together (a join across collations would stop
-- using the index between the two cut-overs), and a CREATE INDEX on a third table, in one run.
CREATE TABLE parent (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
CREATE TABLE child (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  parent_id INT NOT NULL,
  name VARCHAR(40) NOT NULL,
  note TEXT NULL,
  KEY ix_parent (parent_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
CREATE TABLE tag (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  child_id INT NOT NULL,
  label VARCHAR(20) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO parent (name) SELECT CONCAT('Café ', seq) FROM seq_1_to_2000;
INSERT INTO child (parent_id, name, note) SELECT 1 + seq % 2000, CONCAT('Zoë ', seq), IF(seq % 7 = 0, NULL, REPEAT('ü', seq % 30)) FROM seq_1_to_4000;
INSERT INTO tag (child_id, label) SELECT 1 + seq % 4000, CONCAT('t', seq % 50) FROM seq_1_to_2000;
