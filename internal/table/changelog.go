package table

import "fmt"

// The changelog table _<tbl>_ghc carries the migration's heartbeat and state rows, and the cut-over
// sentinel. Its layout is fixed so the binlog applier can read hint and value from row images by
// position: id (1), last_update (2), hint (3), value (4).
const (
	ChangelogHintColumn  = 3 // 1-based position of hint in the row image
	ChangelogValueColumn = 4 // 1-based position of value in the row image

	HintHeartbeat = "heartbeat" // value: the writer's UTC time, RFC3339Nano
	HintState     = "state"     // value: the migration's state name
	HintSentinel  = "sentinel"  // value: a unique token written under the cut-over lock
	// HintRevert is written by a --revert only: its cut-over's names, JSON {"ghost": the old
	// table it swaps back, "old": the name the live table takes}, for --recover-cut-over.
	HintRevert = "revert"
)

// ChangelogDDL creates the changelog table schema.name.
func ChangelogDDL(schema, name string) string {
	return fmt.Sprintf(`CREATE TABLE %s (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  last_update TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  hint VARCHAR(64) CHARACTER SET ascii NOT NULL,
  value VARCHAR(4096) CHARACTER SET utf8mb4 NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY hint_uidx (hint)
) ENGINE=InnoDB`, Qualify(schema, name))
}

// ChangelogUpsert writes (hint, value) to schema.name; args are hint, value.
func ChangelogUpsert(schema, name string) string {
	return fmt.Sprintf("INSERT INTO %s (hint, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value), last_update = CURRENT_TIMESTAMP(6)",
		Qualify(schema, name))
}
