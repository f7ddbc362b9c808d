SELECT COUNT(*) = 100 FROM gl_test WHERE d_i = 0 AND d_t = '00:00:00' AND ts_bi = 0 AND ts_t = '00:00:00' AND d_bit = 0 AND ts_vc = '0000-00-00 00:00:00' AND ts6_bit = 0;
