-- Copied by three sessions (--copy-threads=3) in chunks of 100 over a composite key whose first
-- column is a string compared under utf8mb4_general_ci ('é' sorts and compares as 'e').
CREATE TABLE gl_test (
  tenant VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
  n INT NOT NULL,
  val BIGINT NULL,
  s VARCHAR(40) NOT NULL DEFAULT '',
  v INT NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, n)
) ENGINE=InnoDB;
INSERT INTO gl_test (tenant, n, val, s) SELECT ELT(1 + seq % 6, 'alpha', 'Beta', 'gamma', 'Δelta', 'épsilon', 'zeta'), seq DIV 6, seq * 7, LEFT(SHA2(seq, 256), 32) FROM seq_1_to_6000;
