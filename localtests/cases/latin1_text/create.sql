CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  c CHAR(10) CHARACTER SET latin1 NOT NULL,
  vc VARCHAR(100) CHARACTER SET latin1 COLLATE latin1_swedish_ci NULL,
  t TEXT CHARACTER SET latin1 NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO gl_test (id, c, vc, t)
SELECT seq, CONCAT('ß', seq % 100), CONCAT('Ærøskøbing café ', seq, ' ÿ'), IF(seq % 4 = 0, NULL, REPEAT('Ñandú £ ', 1 + seq % 50)) FROM seq_1_to_2000;
