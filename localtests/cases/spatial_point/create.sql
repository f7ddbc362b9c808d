CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  p POINT NOT NULL,
  g GEOMETRY NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, p, g)
SELECT seq, POINT(seq / 10, -seq / 7), IF(seq % 3 = 0, NULL, IF(seq % 3 = 1, ST_GeomFromText(CONCAT('LINESTRING(0 0, ', seq, ' ', seq, ')')), ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'))) FROM seq_1_to_2000;
