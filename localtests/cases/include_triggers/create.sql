-- Every trigger timing and event, carried to the new table with --include-triggers.
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  v INT NOT NULL DEFAULT 0,
  note VARCHAR(40) NOT NULL DEFAULT '',
  changes INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
CREATE TABLE gl_audit (n INT NOT NULL AUTO_INCREMENT PRIMARY KEY, what CHAR(2) NOT NULL, row_id INT NOT NULL) ENGINE=InnoDB;
CREATE TRIGGER gl_test_bi BEFORE INSERT ON gl_test FOR EACH ROW SET NEW.v = NEW.v + 1000;
CREATE TRIGGER gl_test_bu BEFORE UPDATE ON gl_test FOR EACH ROW SET NEW.changes = OLD.changes + 1;
CREATE TRIGGER gl_test_bd BEFORE DELETE ON gl_test FOR EACH ROW INSERT INTO gl_audit (what, row_id) VALUES ('bd', OLD.id);
CREATE TRIGGER gl_test_ai AFTER INSERT ON gl_test FOR EACH ROW INSERT INTO gl_audit (what, row_id) VALUES ('ai', NEW.id);
CREATE TRIGGER gl_test_au AFTER UPDATE ON gl_test FOR EACH ROW INSERT INTO gl_audit (what, row_id) VALUES ('au', NEW.id);
CREATE TRIGGER gl_test_ad AFTER DELETE ON gl_test FOR EACH ROW INSERT INTO gl_audit (what, row_id) VALUES ('ad', OLD.id);
INSERT INTO gl_test (id, v, note) SELECT seq, seq, CONCAT('row ', seq) FROM seq_1_to_2000;
