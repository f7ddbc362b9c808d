CREATE TABLE gl_test (
  tenant VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
  n INT NOT NULL,
  val BIGINT NULL,
  v INT NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, n)
) ENGINE=InnoDB;
INSERT INTO gl_test (tenant, n, val) SELECT ELT(1 + seq % 5, 'alpha', 'Beta', 'gamma', 'Δelta', 'épsilon'), seq DIV 5, seq * seq FROM seq_1_to_2500;
