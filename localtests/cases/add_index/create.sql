CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  a INT NOT NULL,
  b VARCHAR(40) NOT NULL,
  t TEXT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, a, b, t) SELECT seq, seq % 13, LEFT(SHA2(seq, 256), 32), REPEAT('t', seq % 300) FROM seq_1_to_2000;
