CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  email VARCHAR(60) NOT NULL,
  phone VARCHAR(20) NULL,
  v INT NOT NULL DEFAULT 0,
  UNIQUE KEY uk_email (email)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, email, phone) SELECT seq, CONCAT('user', seq, '@example.com'), IF(seq % 5 = 0, NULL, CONCAT('+91', 9000000000 + seq)) FROM seq_1_to_2000;
