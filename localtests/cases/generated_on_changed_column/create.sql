CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, price INT NOT NULL, qty INT NOT NULL, total INT AS (price * qty) STORED, label VARCHAR(30) AS (CONCAT('p', price)) VIRTUAL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, price, qty) SELECT seq, seq * 3, seq % 17 FROM seq_1_to_2000;
