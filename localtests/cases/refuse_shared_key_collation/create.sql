-- The primary key is unique under utf8mb4_bin ('a' and 'A' differ) but not under the _ci collation
-- the ALTER gives it: the server's ALTER fails with a duplicate key; so must the tool, naming the
-- row (the copy walks the original in its order: 'A', 'B', 'a', so 'a' is the duplicate), with
-- nothing changed.
CREATE TABLE gl_test (
  k VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  n INT NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (k, n) VALUES ('a', 1), ('A', 2), ('b', 3), ('B', 4);
