CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  c CHAR(20) CHARACTER SET utf8mb3 NOT NULL,
  vc VARCHAR(200) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NULL,
  t MEDIUMTEXT CHARACTER SET utf8mb3 NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3;
INSERT INTO gl_test (id, c, vc, t)
SELECT seq, CONCAT('Привет ', seq), CONCAT('日本語テキスト ', seq, ' Ελληνικά'), IF(seq % 5 = 0, NULL, REPEAT('ĀĒĪŌŪ ☃ ', 1 + seq % 40)) FROM seq_1_to_2000;
