package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/receipt"
)

const receiptDB = "gl_main_receipt"

// receiptArgs is the command line of a migration of receiptDB.t with --receipt=file.
func receiptArgs(file string, more ...string) []string {
	c := testenv.PrimaryConfig()
	return append([]string{"--host=" + c.Host, "--port=" + strconv.Itoa(c.Port), "--user=" + c.User, "--password=" + c.Password,
		"--allow-on-master", "--database=" + receiptDB, "--table=t", "--alter=ADD COLUMN c INT NULL", "--quiet",
		"--replica-server-id=" + strconv.Itoa(int(testenv.NextServerID())), "--receipt=" + file}, more...)
}

// readReceipt reads and checks what every receipt holds: the version, the masked command line,
// the table, the exit as the run ended.
func readReceipt(t *testing.T, file string, code int) receipt.Receipt {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no receipt: %v", err)
	}
	var r receipt.Receipt
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("the receipt is not the documented JSON: %v\n%s", err, b)
	}
	if r.Version != receipt.Version || r.Database != receiptDB || r.Table != "t" || r.Alter != "ADD COLUMN c INT NULL" ||
		!strings.HasPrefix(r.Tool, "go-ghostlite ") || r.Ended.Before(r.Started) || r.Exit.Code != code {
		t.Errorf("receipt %+v: want version %d, %s.t, the ALTER, exit %d", r, receipt.Version, receiptDB, code)
	}
	if pw := testenv.PrimaryConfig().Password; strings.Contains(string(b), "--password="+pw) || !slices.Contains(r.CommandLine, "--password=***") {
		t.Errorf("the receipt's command line does not mask the password: %q", r.CommandLine)
	}
	if (code == 0) != (r.Exit.Fatal == "") {
		t.Errorf("exit %d with FATAL %q", code, r.Exit.Fatal)
	}
	return r
}

func phaseNames(r receipt.Receipt) []string {
	var names []string
	for _, p := range r.Phases {
		names = append(names, p.Name)
	}
	return names
}

// A successful migration's receipt: the server, the plan, every phase in order, the rows, the
// checksum and the one attempt that swapped.
func TestReceiptOfASuccess(t *testing.T) {
	db := testenv.Database(t, receiptDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	file := filepath.Join(t.TempDir(), "receipt.json")
	var stderr bytes.Buffer
	// The dry run first: its receipt holds the review.
	if code := run(receiptArgs(file), &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("dry run: exit %d: %s", code, stderr.String())
	}
	if r := readReceipt(t, file, 0); r.Plan.Execute || len(r.Review) == 0 || len(r.CutOver) != 0 {
		t.Errorf("dry run's receipt: execute %v, review %q, attempts %v", r.Plan.Execute, r.Review, r.CutOver)
	}
	if code := run(receiptArgs(file, "--execute"), &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	r := readReceipt(t, file, 0)
	if len(r.Review) != 0 {
		t.Errorf("a run with --execute has a review: %q", r.Review)
	}
	if r.Server.Version == "" || r.Server.Flavor == "" || r.Server.Host == "" {
		t.Errorf("server %+v", r.Server)
	}
	if p := r.Plan; p.Kind != "migrate" || !p.Execute || p.CutOver != "three-step" || p.Instant || p.SharedKey != "PRIMARY" || p.GhostTable != "_t_gho" || p.OldTable != "_t_del" {
		t.Errorf("plan %+v", p)
	}
	if got := phaseNames(r); !slices.Equal(got, []string{"prepare", "copy", "checksum", "cut-over", "done"}) {
		t.Errorf("phases %v", got)
	}
	if r.Copy.RowsCopied != 2000 {
		t.Errorf("copy %+v, want 2000 rows", r.Copy)
	}
	if c := r.Checksum; c == nil || c.Rows != 2000 || c.Ranges < 1 || c.Error != "" || c.NotCompared == nil {
		t.Errorf("checksum %+v", c)
	}
	if a := r.CutOver; len(a) != 1 || a[0].Outcome != "swapped" || a[0].LockedMS > a[0].TookMS || a[0].Error != "" {
		t.Errorf("cut-over attempts %+v", a)
	}
}

// A refusal's receipt: the exit and its FATAL line, no phase run to its end, nothing copied.
func TestReceiptOfARefusal(t *testing.T) {
	testenv.Database(t, receiptDB) // no table t
	file := filepath.Join(t.TempDir(), "receipt.json")
	var stderr bytes.Buffer
	if code := run(receiptArgs(file, "--execute"), &bytes.Buffer{}, &stderr); code != exitFailure {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	r := readReceipt(t, file, 1)
	if want := "FATAL " + r.Exit.Fatal + "\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("the receipt's FATAL %q is not stderr's last line %q", r.Exit.Fatal, stderr.String())
	}
	if r.Copy.RowsCopied != 0 || r.Checksum != nil || len(r.CutOver) != 0 || slices.Contains(phaseNames(r), "copy") {
		t.Errorf("a refusal copied or cut over: %+v", r)
	}
}

// A failed cut-over's receipt: a session holds the original with LOCK TABLES ... READ once the copy
// is done, so each attempt fails on its lock wait; each is in the receipt, failed, with its error.
func TestReceiptOfAFailedCutOver(t *testing.T) {
	db := testenv.Database(t, receiptDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_500")
	dir := t.TempDir()
	file, flag := filepath.Join(dir, "receipt.json"), filepath.Join(dir, "postpone")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	args := receiptArgs(file, "--execute", "--postpone-cut-over-flag-file="+flag, "--default-retries=2", "--cut-over-lock-timeout-seconds=1")
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() { done <- run(args, &bytes.Buffer{}, &stderr) }()
	testenv.WaitFor(t, 60*time.Second, 50*time.Millisecond, "the cut-over postponed", func() (bool, error) {
		var state string
		_ = db.QueryRow("SELECT value FROM _t_ghc WHERE hint = 'state'").Scan(&state)
		return state == "postponed", nil
	})
	holder, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Close() }()
	if _, err := holder.ExecContext(context.Background(), "LOCK TABLES t READ"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end")
	}
	_, _ = holder.ExecContext(context.Background(), "UNLOCK TABLES")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	r := readReceipt(t, file, 1)
	if len(r.CutOver) == 0 {
		t.Fatalf("no cut-over attempt in the receipt: %+v (FATAL %s)", r, r.Exit.Fatal)
	}
	for _, a := range r.CutOver {
		if a.Outcome != "failed" || a.Error == "" || a.TookMS <= 0 {
			t.Errorf("attempt %+v, want failed with its error", a)
		}
	}
	if got := phaseNames(r); len(got) == 0 || got[len(got)-1] != "failed" || !slices.Contains(got, "cut-over") {
		t.Errorf("phases %v, want a cut-over then failed", got)
	}
}
