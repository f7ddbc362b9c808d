SELECT COUNT(*) = 0 FROM gl_test g JOIN `_gl_test_del` d USING (id) WHERE g.u <> d.u;
