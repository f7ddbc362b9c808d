SELECT COUNT(*) = SUM(gv = a + COALESCE(b, 0) AND gs = CONCAT(s, '-', a) AND gc = a) FROM gl_test;
SELECT COUNT(*) = 0 FROM gl_test g JOIN `_gl_test_del` d USING (id) WHERE NOT (g.gv <=> d.gv AND g.gs <=> d.gs);
