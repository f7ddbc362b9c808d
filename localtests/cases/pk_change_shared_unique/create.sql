CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  v INT NOT NULL DEFAULT 0,
  UNIQUE KEY uk_code (code)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, code) SELECT seq, CONCAT('C', LPAD(seq * 7919 % 100003, 6, '0')) FROM seq_1_to_2000;
