CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  s VARCHAR(10) NOT NULL,
  s2 VARCHAR(10) CHARACTER SET utf8mb4 NULL,
  v INT NOT NULL DEFAULT 0,
  KEY ix_s (s)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, s, s2) SELECT seq, LEFT(LEFT(SHA2(seq, 256), 32), 10), IF(seq % 4 = 0, NULL, '😀😀😀😀😀😀😀😀😀😀') FROM seq_1_to_2000;
