CREATE TABLE gl_test (tags SET('x','y','z') NOT NULL, n INT NOT NULL, s VARCHAR(10) NOT NULL, v INT NOT NULL DEFAULT 0, PRIMARY KEY (tags, n)) ENGINE=InnoDB;
INSERT INTO gl_test (tags, n, s) SELECT ELT(1 + seq % 6, '', 'x', 'y,z', 'x,z', 'x,y,z', 'z'), seq, CONCAT('s', seq) FROM seq_1_to_2000;
