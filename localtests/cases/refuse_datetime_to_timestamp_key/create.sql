-- The shared key's column becomes a TIMESTAMP: refused in gh-ost's words.
CREATE TABLE gl_test (dt DATETIME NOT NULL PRIMARY KEY, v INT NOT NULL);
INSERT INTO gl_test SELECT '2020-01-01 00:00:00' + INTERVAL seq MINUTE, seq FROM seq_1_to_500;
