CREATE TABLE gl_test (code VARCHAR(40) NOT NULL PRIMARY KEY, name VARCHAR(30) NOT NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci;
INSERT INTO gl_test (code, name) SELECT CONCAT('Größe-', seq, IF(seq % 2 = 0, 'é', 'E')), CONCAT('n', seq) FROM seq_1_to_2000;
