SET SESSION sql_mode = '';
CREATE TABLE gl_test (
  id INT NOT NULL PRIMARY KEY,
  e ENUM('', 'small', 'medium', 'large') NOT NULL,
  e2 ENUM('x', 'y') NULL,
  s SET('', 'a', 'b', 'c', 'd') NOT NULL,
  s64 SET('a1','a2','a3','a4','a5','a6','a7','a8','a9','a10','a11','a12','a13','a14','a15','a16','a17','a18','a19','a20','a21','a22','a23','a24','a25','a26','a27','a28','a29','a30','a31','a32','a33','a34','a35','a36','a37','a38','a39','a40','a41','a42','a43','a44','a45','a46','a47','a48','a49','a50','a51','a52','a53','a54','a55','a56','a57','a58','a59','a60','a61','a62','a63','a64') NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
INSERT INTO gl_test (id, e, e2, s, s64)
SELECT seq, ELT(1 + seq % 4, '', 'small', 'medium', 'large'), IF(seq % 3 = 0, NULL, ELT(1 + seq % 2, 'x', 'y')),
  ELT(1 + seq % 5, '', 'a', 'a,b', 'b,c,d', ''), IF(seq % 2, 'a1,a32,a33,a64', 'a2') FROM seq_1_to_2000;
INSERT INTO gl_test (id, e, s) VALUES (5000, 'bogus', 'a,zz');
