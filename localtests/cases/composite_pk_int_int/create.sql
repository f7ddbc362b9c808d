CREATE TABLE gl_test (
  a INT NOT NULL,
  b INT NOT NULL,
  payload VARCHAR(40) NOT NULL,
  v INT NOT NULL DEFAULT 0,
  PRIMARY KEY (a, b)
) ENGINE=InnoDB;
INSERT INTO gl_test (a, b, payload) SELECT seq DIV 50, seq % 50, LEFT(SHA2(seq, 256), 32) FROM seq_1_to_2500;
