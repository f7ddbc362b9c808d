CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, t TEXT NULL, tt TINYTEXT NOT NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, t, tt) SELECT seq, IF(seq % 8 = 0, NULL, REPEAT(CONCAT(_utf8mb4'é', seq), seq % 20)), CONCAT('tt ', seq, '  ') FROM seq_1_to_2000;
