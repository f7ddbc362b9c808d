package migrator

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Every cut-over algorithm the sandbox's flavor allows gives the server's own ALTER's result: the
// definition (the AUTO_INCREMENT counter carried under the lock included) and every row, with
// changes made while the cut-over was postponed and right before its lock (so the last of them
// are applied under the lock: on the locking session itself for lock-rename). The algorithms it
// refuses are refused before anything is created (TestAtomicCutOverRefusedOnMySQL and cutover's
// Refused tests).
func TestEveryCutOverAlgorithmGivesTheServersResult(t *testing.T) {
	t.Parallel() // a database of its own
	for _, algo := range config.CutOverAlgorithms() {
		t.Run(algo, func(t *testing.T) {
			if err := cutover.RefuseOn(algo, testenv.Flavor(t)); err != nil {
				t.Skipf("flavor limit: %v", err)
			}
			alter := "ADD COLUMN c INT NOT NULL DEFAULT 7, MODIFY v VARCHAR(40) NOT NULL"
			db, cfg, postponeFile := sameResultSetup(t,
				"CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20) NOT NULL, n INT)", alter,
				"INSERT INTO t (id, v, n) SELECT seq, CONCAT('r', seq), seq FROM seq_1_to_2000")
			cfg.CutOver = algo
			testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
			both := func(ctx context.Context, stmts ...string) error {
				for _, tbl := range []string{"t", "want"} {
					for _, s := range stmts {
						if _, err := db.ExecContext(ctx, fmt.Sprintf(s, tbl)); err != nil {
							return fmt.Errorf("test: %s: %w", fmt.Sprintf(s, tbl), err)
						}
					}
				}
				return nil
			}
			// The last writes go in right before the lock: their binlog events are the tail the
			// cut-over applies under the lock (lock-rename: on its own session).
			m := newWithSeams(t, cfg, seams{cutOver: cutover.TestSeams{BeforeStep: func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
				if step == cutover.StepLock && info.Attempt == 1 {
					return both(ctx, "UPDATE %s SET n = n + 1 WHERE id %% 3 = 0", "INSERT INTO %s (id, v, n) SELECT 5000 + seq, CONCAT('late', seq), seq FROM seq_1_to_300",
						"DELETE FROM %s WHERE id BETWEEN 100 AND 150")
				}
				return nil
			}}})
			done := make(chan error, 1)
			go func() { done <- m.Run(context.Background()) }()
			waitPostponed(t, db, done)
			if err := both(context.Background(), "INSERT INTO %s (id, v, n) VALUES (3000, 'during', 1)", "UPDATE %s SET v = CONCAT(v, '+') WHERE id <= 50",
				"DELETE FROM %s WHERE id BETWEEN 60 AND 70"); err != nil {
				t.Fatal(err)
			}
			finishRun(t, postponeFile, done)
			assertSameAsServerAlter(t, db, "want", alter)
		})
	}
}
