CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  y YEAR NOT NULL,
  yn YEAR NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, y, yn) SELECT seq, ELT(1 + seq % 4, 1901, 2155, 0, 1999), IF(seq % 3 = 0, NULL, 1901 + seq % 255) FROM seq_1_to_2000;
