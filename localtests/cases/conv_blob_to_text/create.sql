CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, b BLOB NULL, vb VARBINARY(60) NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, b, vb) SELECT seq, IF(seq % 9 = 0, NULL, CONVERT(CONCAT(_utf8mb4'über ', seq, _utf8mb4' 😀') USING binary)), CONVERT(CONCAT(_utf8mb4'å ', seq) USING binary) FROM seq_1_to_2000;
