UPDATE parent JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON parent.id = x.r1 SET v = v + 1, name = CONCAT('Ñame ', x.r1);
INSERT INTO parent (name) VALUES (CONCAT('Été ', FLOOR(RAND() * 1000)));
DELETE parent FROM parent JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON parent.id = x.r1;
UPDATE child JOIN (SELECT FLOOR(1 + RAND() * 4000) AS r1) x ON child.id = x.r1 SET note = CONCAT(COALESCE(note, ''), 'ß');
INSERT INTO child (parent_id, name) VALUES (FLOOR(1 + RAND() * 2000), 'Ærø');
DELETE child FROM child JOIN (SELECT FLOOR(1 + RAND() * 4000) AS r1) x ON child.id = x.r1;
UPDATE tag JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON tag.id = x.r1 SET label = CONCAT('u', FLOOR(RAND() * 50));
INSERT INTO tag (child_id, label) VALUES (FLOOR(1 + RAND() * 4000), 'new');
DELETE tag FROM tag JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON tag.id = x.r1;
