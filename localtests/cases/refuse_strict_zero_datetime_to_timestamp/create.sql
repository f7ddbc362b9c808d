-- Rows written under a permissive sql_mode hold a zero date and a date with a zero month; the
-- server's global sql_mode (globals) is strict with NO_ZERO_DATE and NO_ZERO_IN_DATE, so its own
-- ALTER refuses the table, and so must the tool.
CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, dt DATETIME NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, dt) SELECT seq, '2021-03-04 05:06:07' FROM seq_1_to_500;
SET SESSION sql_mode = '';
INSERT INTO gl_test (id, dt) VALUES (501, '0000-00-00 00:00:00');
