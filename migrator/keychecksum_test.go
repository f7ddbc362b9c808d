package migrator

import (
	"context"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// A key converted into a collation that equates keys the original tells apart ('ss' and 'ß'), so
// the ghost's rows are addressed by their key bytes: the checksum compares the tables as one
// range instead of being skipped. Ghost rows corrupted right before it (a value changed, a row
// deleted, one added, a key's bytes changed within the new collation's equality, 'a' to 'A') are
// found and the whole ghost is copied again: the migrated table is what the server's own ALTER
// makes of the original, keys byte for byte.
func TestChecksumRepairsByteAddressedKey(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, keyCollationDB)
	testenv.Exec(t, db, "CREATE TABLE t (k VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB")
	insertKeys(t, serverSession(t, db), keyCollationBase, 1)
	testenv.Exec(t, db, "INSERT INTO t (k, v) SELECT CONCAT('f', seq), seq FROM seq_1_to_40")
	alter := "CONVERT TO CHARACTER SET utf8mb4" // into the server's default: a UCA collation on MySQL and MariaDB 11.8
	orig, ghost := keyCollationColumns(t, db, schema, alter)
	if !plan.ComparedByBytes(orig, ghost) { // MariaDB 10.11's default, utf8mb4_general_ci, keeps 'ss' and 'ß' apart
		alter += " COLLATE utf8mb4_unicode_ci"
		orig, ghost = keyCollationColumns(t, db, schema, alter)
	}
	if !plan.ComparedByBytes(orig, ghost) {
		t.Fatalf("k from %s into %s is not addressed by its bytes", orig.Collation, ghost.Collation)
	}
	logs := &testenv.LogBuffer{}
	cfg := testConfig(t, schema, "t", alter, logs)
	live(&cfg)
	cfg.ChunkSize = 10
	rounds := 0
	corrupt := func(ctx context.Context, round int) error {
		rounds++
		if round > 0 {
			return nil
		}
		for _, q := range []string{"UPDATE _t_gho SET v = v + 100 WHERE k = 'ss'", "DELETE FROM _t_gho WHERE k = 'f7'",
			"INSERT INTO _t_gho (k, v) VALUES ('extra', 1)", "UPDATE _t_gho SET k = 'A' WHERE k = 'a'"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	if err := newWithSeams(t, cfg, seams{beforeSnapshot: corrupt}).Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if rounds != 2 {
		t.Errorf("%d snapshots, want 2 (the full pass, then the re-check of the whole table)", rounds)
	}
	for _, want := range []string{"the tables are compared as one range", "checksum: 50 rows compared in 1 ranges, 1 repaired"} {
		if !logs.Contains(want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	if logs.Contains("checksum skipped") {
		t.Error("the checksum was skipped")
	}
	compareWithServerALTER(t, db, schema, alter)
}
