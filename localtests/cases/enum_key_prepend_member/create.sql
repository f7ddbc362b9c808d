CREATE TABLE gl_test (e ENUM('b','c','d') NOT NULL, n INT NOT NULL, s VARCHAR(10) NOT NULL, v INT NOT NULL DEFAULT 0, PRIMARY KEY (e, n)) ENGINE=InnoDB;
INSERT INTO gl_test (e, n, s) SELECT ELT(1 + seq % 3, 'b', 'c', 'd'), seq, CONCAT('s', seq) FROM seq_1_to_2000;
