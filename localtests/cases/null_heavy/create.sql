CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  a INT NULL,
  b VARCHAR(30) NULL,
  c DATETIME(6) NULL,
  d DECIMAL(10,2) NULL,
  e BLOB NULL,
  f ENUM('x', 'y') NULL,
  g JSON NULL,
  h BIT(8) NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id) SELECT seq FROM seq_1_to_2000;
UPDATE gl_test SET a = id, b = '', c = '2020-01-01', d = 0, e = '', f = 'x', g = '{}', h = 0 WHERE id % 10 = 0;
