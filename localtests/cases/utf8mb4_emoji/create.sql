CREATE TABLE gl_test (
  id BIGINT NOT NULL PRIMARY KEY,
  c CHAR(8) CHARACTER SET utf8mb4 NOT NULL,
  vc VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
  t TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO gl_test (id, c, vc, t)
SELECT seq, '😀😁😂', CONCAT('emoji 🎉 ', seq, ' 👩‍👩‍👧‍👦'), IF(seq % 6 = 0, NULL, REPEAT('𝄞𠜎 ', 1 + seq % 30)) FROM seq_1_to_2000;
