-- One duplicate of the new unique key, in another chunk than its twin: the second copy of chunk 3
-- raises 999 duplicates of the primary key before the one on uu, past the 64 SHOW WARNINGS lists
-- by default. The tool must still see it and refuse, as the server's ALTER does.
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  u VARCHAR(10) NOT NULL,
  n INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, u, n) SELECT seq, CONCAT('v', seq), seq FROM seq_1_to_3000;
UPDATE gl_test SET u = 'v5' WHERE id = 2500;
