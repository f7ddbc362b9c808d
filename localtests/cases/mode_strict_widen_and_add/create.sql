CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, n SMALLINT NOT NULL, s VARCHAR(10) NOT NULL, e ENUM('a','b') NOT NULL, d DATE NOT NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, n, s, e, d) SELECT seq, seq * 7, CONCAT('s', seq), IF(seq % 2, 'a', 'b'), '2020-01-01' + INTERVAL seq DAY FROM seq_1_to_2000;
