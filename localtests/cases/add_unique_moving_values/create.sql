-- slot is unique in practice, but the original does not enforce it: the ALTER adds UNIQUE KEY
-- uk_slot. Rows come in groups of five (ids 5g+1 .. 5g+5) whose slots are always a permutation
-- of 5g+1 .. 5g+5; the load rotates the slots of a group in one statement.
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  slot INT NULL,
  v INT NOT NULL DEFAULT 0,
  KEY ix_slot (slot)
) ENGINE=InnoDB;
INSERT INTO gl_test (id, slot) SELECT seq, seq FROM seq_1_to_5000;
