CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, s VARCHAR(50) CHARACTER SET latin1 NULL, t TEXT CHARACTER SET latin1 NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO gl_test (id, s, t) SELECT seq, IF(seq % 13 = 0, NULL, CONCAT('caf', _utf8mb4'é ', seq, _utf8mb4' üßÅ©')), REPEAT(_utf8mb4'àçñ', seq % 20) FROM seq_1_to_2000;
