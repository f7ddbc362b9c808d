CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, s SET('x','y','z') NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, s) SELECT seq, IF(seq % 9 = 0, NULL, seq % 8) FROM seq_1_to_2000;
