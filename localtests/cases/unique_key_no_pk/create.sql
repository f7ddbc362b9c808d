CREATE TABLE gl_test (
  uid VARBINARY(16) NOT NULL,
  a INT NULL,
  v INT NOT NULL DEFAULT 0,
  UNIQUE KEY uk_uid (uid)
) ENGINE=InnoDB;
INSERT INTO gl_test (uid, a) SELECT UNHEX(LEFT(SHA2(seq, 256), 32)), seq FROM seq_1_to_2000;
