package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/hooks"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/metrics"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// runTableSet runs one migration of several tables, inv.Tables (one per statement of
// --statement, from config.Config.PerTable, each valid alone), cut over together
// (migrator.Set). The hooks run for each table, with that table's name and ALTER; the
// interactive commands and the live view steer and show the set as one; the metrics label each
// series by its table; --receipt and --statsd-addr are refused for a set (they describe one table).
// A --revert of a set names each table's old table in --old-table (setOldTables).
func runTableSet(ctx context.Context, inv invocation) error {
	if err := setOldTables(inv.Tables); err != nil {
		return err
	}
	for i := range inv.Tables {
		if err := inv.Tables[i].Validate(); err != nil {
			return err
		}
	}
	if flag := setRefusedFlag(inv); flag != "" {
		return fmt.Errorf("%w: %s with --statement naming %d tables: not supported for several tables yet; migrate them one at a time to use it",
			config.ErrUsage, flag, len(inv.Tables))
	}
	set, err := migrator.NewSet(inv.Tables)
	if err != nil {
		return err
	}
	var hooked []*hooks.Hooks
	for _, m := range set.Members() {
		m.SetCutOverSeams(inv.CutOverSeams)
		if h := setMemberHooks(inv, m); h != nil {
			hooked = append(hooked, h)
		}
	}
	defer func() {
		for _, h := range hooked {
			h.Wait()
		}
	}()
	if inv.Metrics.addr != "" {
		met, err := setMetrics(inv, set)
		if err != nil {
			return err
		}
		defer met.Close() //nolint:contextcheck // Close bounds its own shutdown (a few seconds)
	}
	var onCommand func(string) error
	if len(hooked) > 0 { // the first table's on-interactive-command hooks: a command steers the set
		onCommand = hooked[0].InteractiveCommand
	}
	return serveAndRun(ctx, inv, set, onCommand, set.Run)
}

// setOldTables gives each table of a --revert (or --recover-cut-over of a revert) of a set its
// own old table: --old-table lists them, comma-separated, in the order of --statement's
// statements (one name would be every table's, and only one table's old table).
func setOldTables(tables []config.Config) error {
	if tables[0].OldTableName == "" {
		return nil // refused by Validate where --revert needs it
	}
	olds := strings.Split(tables[0].OldTableName, ",")
	if len(olds) != len(tables) {
		example := make([]string, len(tables))
		for i, c := range tables {
			example[i] = table.OldName(c.Table, "")
		}
		return fmt.Errorf("%w: --old-table=%s gives %d old table names for the %d tables of --statement: give each table's old table, comma-separated in the order of the statements (--old-table=%s)",
			config.ErrUsage, tables[0].OldTableName, len(olds), len(tables), strings.Join(example, ","))
	}
	for i := range tables {
		tables[i].OldTableName = strings.TrimSpace(olds[i])
	}
	return nil
}

// setRefusedFlag names a flag given that a set does not honour yet, or "".
func setRefusedFlag(inv invocation) string {
	switch {
	case inv.Receipt != "":
		return "--receipt"
	case inv.Metrics.statsdAddr != "":
		return "--statsd-addr"
	}
	return ""
}

// setMemberHooks attaches the hooks (--hooks-path) to one table of a set, with its ALTER; nil
// without --hooks-path.
func setMemberHooks(inv invocation, m *migrator.Migrator) *hooks.Hooks {
	f := inv.Hooks
	if f.path == "" {
		return nil
	}
	cfg := m.Config()
	h := hooks.New(hooks.Config{Path: f.path, Hint: f.hint, HintOwner: f.hintOwner, HintToken: f.hintToken,
		StatusInterval: f.statusInterval,
		Alter:          cfg.Alter, DryRun: !cfg.Execute, Revert: cfg.Revert, Logger: cfg.Logger}, m)
	m.Observe(h)
	m.GateStep(h.Step)
	return h
}

// setMetrics serves the metrics of every table of the set on --metrics-addr, each series
// labelled by its table.
func setMetrics(inv invocation, set *migrator.Set) (*metrics.Metrics, error) {
	var cs []observe.Controls
	for _, m := range set.Members() {
		cs = append(cs, m)
	}
	met := metrics.NewSet(cs, inv.Config.Logger)
	for i, m := range set.Members() {
		m.Observe(met.Tables()[i])
	}
	if _, err := met.Listen(inv.Metrics.addr); err != nil {
		return nil, err
	}
	return met, nil
}

// setName names the tables of a set for the interactive commands: "a,b".
func setName(tables []config.Config) string {
	names := make([]string, len(tables))
	for i, c := range tables {
		names[i] = c.Table
	}
	return strings.Join(names, ",")
}
