-- JSON numbers stored as DECIMALs (MySQL keeps their digits: 1.50, not the DOUBLE 1.5), nested at
-- several depths beside DOUBLEs, integers and strings; one JSON column becomes text.
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  j JSON NOT NULL,
  jt JSON NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, j, jt)
SELECT seq, JSON_OBJECT('d', CAST(seq / 8 AS DECIMAL(12,3)), 'f', seq / 7e0, 'i', seq, 's', CONCAT('x', seq),
  'a', JSON_ARRAY(1.50, -0.000, CAST(seq AS DECIMAL(30,10)), JSON_OBJECT('deep', JSON_ARRAY(12345678901234567890.123456789, seq * 1.25)))),
  IF(seq % 4 = 0, NULL, JSON_ARRAY(2.50, JSON_OBJECT('k', CAST(seq AS DECIMAL(6,2))))) FROM seq_1_to_2000;
