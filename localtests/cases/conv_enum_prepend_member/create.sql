CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, e ENUM('b','c','d') NULL, en ENUM('x','y') NOT NULL DEFAULT 'y', v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, e, en) SELECT seq, ELT(1 + seq % 4, 'b', 'c', 'd', NULL), IF(seq % 2, 'x', 'y') FROM seq_1_to_2000;
