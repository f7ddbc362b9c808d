CREATE TABLE gl_test (tags SET('x','y','z') NOT NULL, n INT NOT NULL, s VARCHAR(10) NOT NULL, PRIMARY KEY (tags, n)) ENGINE=InnoDB;
INSERT INTO gl_test (tags, n, s) SELECT ELT(1 + seq % 3, 'x', 'x,z', 'y,z'), seq, CONCAT('s', seq) FROM seq_1_to_200;
