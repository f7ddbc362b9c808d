-- Rows written under a permissive sql_mode hold zero dates and dates with a zero month or day; the
-- server's global sql_mode (globals) is strict with NO_ZERO_DATE and NO_ZERO_IN_DATE. The ALTER
-- turns the date columns into numbers and TIMEs, which the server's own ALTER converts (0,
-- 20200010, '12:34:56'...). The load updates the rows, so the applier writes the zero dates again:
-- it must convert them as the server does, not refuse them (issue 29); a zero TIMESTAMP too, in the
-- copy (its zone conversion) and the applier. Into a BIT the server stores the number (its fraction
-- rounded on MySQL, cut on MariaDB), and a zero TIMESTAMP into a string its text.
CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY,
  d_i DATE NULL, d_dbl DATE NULL, d_t DATE NULL,
  dt_bi DATETIME NULL, dt_dec DATETIME NULL, dt_t DATETIME NULL,
  dt6_bi DATETIME(6) NULL, dt6_dec DATETIME(6) NULL, dt6_flt DATETIME(6) NULL, dt6_t DATETIME(6) NULL, dt6_t6 DATETIME(6) NULL,
  ts_bi TIMESTAMP NULL, ts_t TIMESTAMP NULL, ts6_dec TIMESTAMP(6) NULL,
  d_bit DATE NULL, dt6_bit DATETIME(6) NULL, ts_vc TIMESTAMP NULL, ts6_ch TIMESTAMP(6) NULL, ts6_bit TIMESTAMP(6) NULL,
  v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
SET SESSION sql_mode = '';
INSERT INTO gl_test (id, d_i, d_dbl, d_t, dt_bi, dt_dec, dt_t, dt6_bi, dt6_dec, dt6_flt, dt6_t, dt6_t6, ts_bi, ts_t, ts6_dec, d_bit, dt6_bit, ts_vc, ts6_ch, ts6_bit) SELECT seq, x.d, x.d, x.d, x.dt, x.dt, x.dt, x.dt6, x.dt6, x.dt6, x.dt6, x.dt6, x.ts, x.ts, x.ts, x.d, x.dt6, x.ts, x.ts6, x.ts6 FROM seq_1_to_400 JOIN (SELECT 0 AS k, '0000-00-00' AS d, '0000-00-00 00:00:00' AS dt, '0000-00-00 12:34:56.500000' AS dt6, '0000-00-00 00:00:00' AS ts, '0000-00-00 00:00:00.000000' AS ts6 UNION ALL SELECT 1, '2020-00-10', '2020-00-10 12:34:56', '2020-00-10 12:34:56.500000', '2038-01-18 00:00:00', '2038-01-18 00:00:00.500000' UNION ALL SELECT 2, '2020-05-00', '2020-05-00 23:59:59', '2020-05-00 00:00:00.999999', '2021-03-04 05:06:07', '2021-03-04 05:06:07.999999' UNION ALL SELECT 3, '2021-03-04', '2021-03-04 05:06:07', '2021-03-04 05:06:07.250000', '2021-03-04 05:06:07', '2021-03-04 05:06:07.250000') AS x ON x.k = seq % 4;
INSERT INTO gl_test (id, v) VALUES (401, 1);
