package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/receipt"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// checkReceiptPath refuses, before anything runs, a --receipt file whose directory does not exist
// or is not one: the receipt is written when the run ends, too late to say so.
func checkReceiptPath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--receipt=%s: directory %s does not exist; create it or name a file in an existing directory", path, dir)
	}
	return nil
}

// newReceipt starts the run's receipt, nil without --receipt. args is the command line, whose
// passwords are masked in it.
func newReceipt(inv invocation, args []string) *receipt.Recorder {
	if inv.Receipt == "" {
		return nil
	}
	c := inv.Config
	return receipt.New(receipt.Receipt{Tool: "go-ghostlite " + versionText(), CommandLine: maskPasswordArgs(args),
		Database: c.Database, Table: c.Table, Alter: c.Alter,
		Plan: receipt.Plan{Kind: runKind(c), Execute: c.Execute, CutOver: c.CutOver}})
}

// runKind is the receipt's name for what c asks for.
func runKind(c config.Config) string {
	switch {
	case c.Revert:
		return "revert"
	case c.Resume:
		return "resume"
	case c.RecoverCutOver:
		return "recover-cut-over"
	}
	return "migrate"
}

// writeReceipt completes and writes the receipt (when there is one) of a run that ends with code
// and err; m is nil when the run never started. A receipt that cannot be written is a warning:
// the run's own outcome stands.
func writeReceipt(rec *receipt.Recorder, inv invocation, m *migrator.Migrator, code int, err error) {
	if rec == nil {
		return
	}
	var st status.Status
	if m != nil {
		st = m.Status()
	}
	fatal := ""
	if err != nil {
		fatal = fatalText(err)
	}
	if werr := receipt.Write(inv.Receipt, rec.Finish(st, code, fatal)); werr != nil {
		inv.Config.Logger.Warn().Err(werr).Msg("the receipt was not written")
	}
}
