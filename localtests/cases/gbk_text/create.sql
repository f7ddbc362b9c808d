CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  c CHAR(10) CHARACTER SET gbk NOT NULL,
  vc VARCHAR(100) CHARACTER SET gbk COLLATE gbk_chinese_ci NULL,
  t TEXT CHARACTER SET gbk NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=gbk;
INSERT INTO gl_test (id, c, vc, t)
SELECT seq, CONCAT('中', seq % 1000), CONCAT('汉字测试 ', seq), IF(seq % 4 = 0, NULL, REPEAT('数据库迁移', 1 + seq % 20)) FROM seq_1_to_2000;
