CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  a INT NOT NULL,
  b INT NULL,
  s VARCHAR(20) NOT NULL,
  gv INT AS (a + COALESCE(b, 0)) VIRTUAL,
  gs VARCHAR(40) AS (CONCAT(s, '-', a)) STORED,
  v INT NOT NULL DEFAULT 0,
  KEY ix_gs (gs)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, a, b, s) SELECT seq, seq * 3, IF(seq % 2, NULL, -seq), CONCAT('s', seq) FROM seq_1_to_2000;
