CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  j JSON NOT NULL,
  jn JSON NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, j, jn)
SELECT seq, JSON_OBJECT('n', seq, 's', CONCAT('näme "', seq, '" 😀'), 'a', JSON_ARRAY(1, 2.5, NULL, TRUE)), IF(seq % 3 = 0, NULL, '[]') FROM seq_1_to_2000;
