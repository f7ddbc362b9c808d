CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, e ENUM('x','y','z') NULL, s SET('a','b','c') NOT NULL, e2 ENUM('10','20','3') NOT NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, e, s, e2) SELECT seq, ELT(1 + seq % 4, 'x', 'y', 'z', NULL), ELT(1 + seq % 4, '', 'a', 'b,c', 'a,b,c'), ELT(1 + seq % 3, '10', '20', '3') FROM seq_1_to_2000;
