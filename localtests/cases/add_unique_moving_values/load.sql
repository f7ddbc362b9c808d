-- A rotation moves every slot of a group of five rows to another row of the group, in one
-- statement (the group is picked by a one-row derived table, so RAND() runs once). The binary log
-- has one row change per row, in id order: replayed a few at a time (--dml-batch-size=2), the
-- ghost goes through states where two rows hold one slot, which its unique key refuses but the
-- original never had.
UPDATE gl_test t JOIN (SELECT 5 * FLOOR(RAND() * 1000) AS b) g ON t.id BETWEEN g.b + 1 AND g.b + 5 SET t.slot = IF(t.slot % 5 = 0, t.slot - 4, t.slot + 1);
UPDATE gl_test t JOIN (SELECT 5 * FLOOR(RAND() * 1000) AS b) g ON t.id BETWEEN g.b + 1 AND g.b + 5 SET t.slot = IF(t.slot % 5 = 1, t.slot + 4, t.slot - 1);
UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 5000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1;
INSERT INTO gl_test (id, slot) VALUES (FLOOR(5001 + RAND() * 1000), NULL);
DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(5001 + RAND() * 1000) AS r1) x ON gl_test.id = x.r1;
