-- TIMESTAMP columns become a BIGINT, a VARCHAR, a TIME and a DECIMAL, and a TIME becomes a
-- TIMESTAMP, on a zone with daylight saving time: the server's ALTER takes the wall clock in its
-- zone (the hours around both changes of 2021 included), and so must the copy and the applier
-- (issue 29: these pairs were refused).
CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, ts TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00', ts_txt TIMESTAMP(3) NULL, ts_t TIMESTAMP NULL, ts6_dec TIMESTAMP(6) NULL, t TIME NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO gl_test (id, ts, ts_txt, ts_t, ts6_dec, t) SELECT seq, FROM_UNIXTIME(IF(seq <= 1000, 1616881200, 1635631200) + seq * 421), FROM_UNIXTIME(1616881200 + seq * 7.125), FROM_UNIXTIME(1635631200 + seq * 13), FROM_UNIXTIME(1635631200 + seq * 3.000001), SEC_TO_TIME(CAST(seq AS SIGNED) * 37 - 30000) FROM seq_1_to_2000;
