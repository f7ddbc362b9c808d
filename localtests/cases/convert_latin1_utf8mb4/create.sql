CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(50) NOT NULL,
  descr TEXT NULL,
  code CHAR(3) NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO gl_test (id, name, descr, code) SELECT seq, CONCAT('Gruß ', seq, ' ñ'), IF(seq % 3 = 0, NULL, CONCAT('Ça coûte ', seq, ' £')), 'ÆØÅ' FROM seq_1_to_2000;
