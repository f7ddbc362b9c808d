package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestTLS runs a whole migration on a server that refuses plaintext (require_secure_transport),
// so every connection the tool opens (inspector, applier, copy, binlog stream, cut-over sessions)
// must use TLS; a run without --ssl and a run trusting the wrong CA each fail with one line.
func TestTLS(t *testing.T) {
	srv := testenv.StartTLSServer(t)
	db := testenv.Open(t, srv.Config(t), "test")
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_3000")
	base := testenv.MigrationArgs(srv.Config(t), "test", "t")
	runArgs := func(extra ...string) (int, string) {
		var stderr bytes.Buffer
		code := run(append(append([]string{}, base...), extra...), io.Discard, &stderr)
		return code, stderr.String()
	}

	code, out := runArgs("--alter=ADD COLUMN c INT NULL", "--quiet")
	if want := "refuses connections without TLS"; code != exitFailure || strings.Count(out, "\n") != 1 || !strings.Contains(out, want) || !strings.Contains(out, "pass --ssl") {
		t.Errorf("plaintext: exit %d, want one line with %q:\n%s", code, want, out)
	}
	code, out = runArgs("--alter=ADD COLUMN c INT NULL", "--quiet", "--ssl", "--ssl-ca="+srv.OtherCAFile)
	if want := "not signed by a trusted CA"; code != exitFailure || strings.Count(out, "\n") != 1 || !strings.Contains(out, want) || !strings.Contains(out, "--ssl-ca") {
		t.Errorf("wrong CA: exit %d, want one line with %q:\n%s", code, want, out)
	}
	// --ssl-allow-insecure: encrypted without verifying the chain (a dry run).
	if code, out = runArgs("--alter=ADD COLUMN c INT NULL", "--quiet", "--ssl", "--ssl-allow-insecure"); code != exitOK {
		t.Errorf("--ssl-allow-insecure: exit %d:\n%s", code, out)
	}
	code, out = runArgs("--alter=ADD COLUMN c INT NULL", "--ssl-ca="+srv.CAFile)
	if code != exitUsage || !strings.Contains(out, "need --ssl") {
		t.Errorf("--ssl-ca without --ssl: exit %d:\n%s", code, out)
	}

	code, out = runArgs("--alter=ADD COLUMN c INT NULL", "--ssl", "--ssl-ca="+srv.CAFile,
		"--ssl-cert="+srv.ClientCert, "--ssl-key="+srv.ClientKey, "--execute", "--verbose")
	if code != exitOK {
		t.Fatalf("migration over TLS: exit %d\n%s", code, out)
	}
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT COUNT(c IS NULL) FROM t").Scan(&n); err != nil || n != 3000 {
		t.Fatalf("after the migration: %d rows with the new column, err %v", n, err)
	}
	// The server itself saw only encrypted sessions: it refuses any other.
	var cipher string
	if err := db.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(new(string), &cipher); err != nil || cipher == "" {
		t.Fatalf("test session not encrypted: %q %v", cipher, err)
	}
}
