package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// server is the sandbox primary the bench measures on, and its replica when there is one.
type server struct {
	db      *sql.DB
	flavor  dbconn.Flavor
	replica *sql.DB // nil when no replica answers
	pid     string  // the server's process id when it runs on this machine (cpu.go)
}

func openServer(ctx context.Context, cfg dbconn.Config) (*server, error) {
	db, err := dbconn.Open(ctx, cfg, "")
	if err != nil {
		return nil, err
	}
	s := &server{db: db}
	if s.flavor, err = dbconn.DetectFlavor(ctx, db); err != nil {
		return nil, err
	}
	if p := os.Getenv("GHOSTLITE_TEST_REPLICA_PORT"); p != "" {
		rc := cfg
		rc.Port, _ = strconv.Atoi(p)
		rc.Timeout = 2 * time.Second
		if r, err := dbconn.Open(ctx, rc, ""); err == nil {
			s.replica = r
		}
	}
	return s, nil
}

func (s *server) exec(ctx context.Context, qs ...string) error {
	for _, q := range qs {
		if q == "" {
			continue
		}
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// timed lets the server settle, then times q.
func (s *server) timed(ctx context.Context, q string) (time.Duration, error) {
	s.settle(ctx)
	start := time.Now()
	err := s.exec(ctx, q)
	return time.Since(start), err
}

// createSource builds glr_bench.src, the table every case starts from.
func (s *server) createSource(ctx context.Context, rows int) error {
	// numbers 1..rows from a digits table (MySQL has no seq_1_to_N tables)
	err := s.exec(ctx, "DROP DATABASE IF EXISTS glr_bench", "CREATE DATABASE glr_bench",
		"CREATE TABLE glr_bench.digits (d INT PRIMARY KEY)",
		"INSERT INTO glr_bench.digits VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		`CREATE TABLE glr_bench.src (
		id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
		account_id INT NOT NULL, kind TINYINT NOT NULL, amount DECIMAL(12,2) NOT NULL,
		label VARCHAR(96) NOT NULL, ref CHAR(20) NOT NULL, created_at DATETIME NOT NULL,
		KEY account_idx (account_id)) ENGINE=InnoDB`,
		fmt.Sprintf(`INSERT INTO glr_bench.src (account_id, kind, amount, label, ref, created_at)
		SELECT seq %% 100000, seq %% 7, (seq %% 1000000) / 100, CONCAT('label for row ', seq, ' ', REPEAT('x', 30 + seq %% 20)),
		LPAD(seq, 20, '0'), '2026-01-01' + INTERVAL seq SECOND
		FROM (SELECT 1 + a.d + 10*b.d + 100*c.d + 1000*e.d + 10000*f.d + 100000*g.d + 1000000*h.d AS seq
		      FROM glr_bench.digits a, glr_bench.digits b, glr_bench.digits c, glr_bench.digits e,
		           glr_bench.digits f, glr_bench.digits g, glr_bench.digits h) s
		WHERE seq <= %d ORDER BY seq`, rows), "DROP TABLE glr_bench.digits")
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, "ANALYZE TABLE glr_bench.src")
	return err
}

// avgRowLength is the server's estimate of the source rows' size, for the report (0 when unknown).
func (s *server) avgRowLength(ctx context.Context) int64 {
	var n int64
	_ = s.db.QueryRowContext(ctx, "SELECT AVG_ROW_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA='glr_bench' AND TABLE_NAME='src'").Scan(&n)
	return n
}

// freshTable makes glr_bench.t a copy of src and lets the server settle.
func (s *server) freshTable(ctx context.Context) error {
	err := s.exec(ctx, "DROP TABLE IF EXISTS glr_bench.t", "DROP TABLE IF EXISTS glr_bench._t_del",
		"CREATE TABLE glr_bench.t LIKE glr_bench.src", "INSERT INTO glr_bench.t SELECT * FROM glr_bench.src")
	s.settle(ctx)
	return err
}

// settle waits (at most 15 s) until InnoDB has flushed most dirty pages, so that no measurement
// pays much for the writes of the one before.
func (s *server) settle(ctx context.Context) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var name string
		var dirty, total int64
		if s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &dirty) != nil ||
			s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'").Scan(&name, &total) != nil {
			return
		}
		if dirty*100 <= total*10 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// pauseReplica stops the replica's SQL thread (the replica keeps receiving the binlog) and returns
// the function that starts it again and waits for it to catch up.
func (s *server) pauseReplica(ctx context.Context) (func(), error) {
	if s.replica == nil {
		return func() {}, nil
	}
	if st, err := replicaStatus(ctx, s.replica, s.flavor); err != nil || st[s.flavor.SQLThreadRunningColumn()] != "Yes" {
		return func() {}, nil // not replicating: nothing to pause, nothing to restart
	}
	if _, err := s.replica.ExecContext(ctx, s.flavor.StopReplicaSQL()+" SQL_THREAD"); err != nil {
		return nil, fmt.Errorf("pause the sandbox replica: %w", err)
	}
	fmt.Println("sandbox replica: SQL thread paused while measuring (it shares this machine's cores); --with-replica keeps it running")
	return func() {
		if _, err := s.replica.ExecContext(ctx, s.flavor.StartReplicaSQL()+" SQL_THREAD"); err != nil {
			fmt.Fprintln(os.Stderr, "bench: could not restart the sandbox replica's SQL thread:", err, "(run "+s.flavor.StartReplicaSQL()+" on it)")
			return
		}
		// best effort, like the restart above: a failed read or wait only shortens the catch-up wait
		var pos string
		_ = s.db.QueryRowContext(ctx, s.flavor.GTIDPositionSQL()).Scan(&pos)
		fmt.Print("sandbox replica: catching up... ")
		start := time.Now()
		var res sql.NullInt64
		_ = s.replica.QueryRowContext(ctx, s.flavor.WaitGTIDSQL(), pos, 600).Scan(&res)
		fmt.Printf("done in %.0fs\n", time.Since(start).Seconds())
	}, nil
}

// replicaStatus is SHOW SLAVE (REPLICA) STATUS as column name -> value (empty when not a replica).
func replicaStatus(ctx context.Context, db *sql.DB, f dbconn.Flavor) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, f.ReplicaStatusSQL())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() {
		return map[string]string{}, err
	}
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, err
	}
	st := make(map[string]string, len(cols))
	for i, c := range cols {
		st[c] = vals[i].String
	}
	return st, rows.Err()
}
