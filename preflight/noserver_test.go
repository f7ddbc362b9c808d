package preflight

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The checks marked NoServer read the State alone: each is run here with no pool at all, on
// what the checks before it leave (a parsed ALTER, the original's definition, the inspected
// tables), and refuses what it must. No sandbox is needed.

// noServerState is a State as the checks before the NoServer ones leave it, with no pool: the
// original t(id, v, w) with a named CHECK constraint, the ghost with v dropped, on flavor f.
func noServerState(t *testing.T, alter string, f dbconn.Flavor) *State {
	t.Helper()
	cfg := config.Default()
	cfg.Database, cfg.Table, cfg.Alter = "d", "t", alter
	st := NewState(cfg, zerolog.Nop())
	st.Plan.Flavor = f
	cols := func(names ...string) []table.Column {
		out := make([]table.Column, len(names))
		for i, n := range names {
			out[i] = table.Column{Name: n, DataType: "int", ColumnType: "int", Nullable: n != "id"}
		}
		return out
	}
	pk := []table.Key{{Name: "PRIMARY", Columns: []string{"id"}}}
	st.Plan.Original = &table.Table{Schema: "d", Name: "t", Engine: "InnoDB", Columns: cols("id", "v", "w"), UniqueKeys: pk}
	st.Plan.Ghost = &table.Table{Schema: "d", Name: "_t_gho", Engine: "InnoDB", Columns: cols("id", "w"), UniqueKeys: pk}
	st.Original.Create = "CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `v` int,\n  `w` int,\n  PRIMARY KEY (`id`),\n  CONSTRAINT `v_pos` CHECK ((`v` > 0))\n)"
	return st
}

// runNoServer runs the registry's check named name (which must be marked NoServer) on st.
func runNoServer(t *testing.T, st *State, name string) error {
	t.Helper()
	for _, c := range registry {
		if c.Name == name {
			if !c.NoServer {
				t.Fatalf("check %q is not marked NoServer", name)
			}
			return c.Run(context.Background(), st)
		}
	}
	t.Fatalf("no check %q", name)
	return nil
}

// Every NoServer check runs, in registry order, on a State with no pool and passes for an ALTER
// it has nothing against.
func TestNoServerChecksNeedNoServer(t *testing.T) {
	st := noServerState(t, "DROP COLUMN v", dbconn.Flavor{MariaDB: true})
	n := 0
	for _, c := range registry {
		if !c.NoServer {
			continue
		}
		n++
		if err := c.Run(context.Background(), st); err != nil {
			t.Errorf("check %q (%s) with no server: %v", c.Name, c.Scope, err)
		}
	}
	if n < 4 {
		t.Errorf("%d checks marked NoServer, want the four that read the State alone", n)
	}
	if len(st.Plan.Columns) != 2 || st.Plan.GhostTable != "_t_gho" {
		t.Errorf("the checks did not fill the plan: columns %v, ghost %q", st.Plan.Columns, st.Plan.GhostTable)
	}
}

// What each NoServer check refuses, from the statement, the flags and the definition alone.
func TestNoServerChecksRefuse(t *testing.T) {
	mysql := dbconn.Flavor{}
	for _, c := range []struct {
		name, check, alter string
		flavor             dbconn.Flavor
		set                func(st *State)
		want               string // "" = passes
	}{
		{name: "a rename needs approval", check: "alter", alter: "CHANGE COLUMN v v2 INT", want: "renames columns, as follows: v to v2"},
		{name: "an approved rename", check: "alter", alter: "CHANGE COLUMN v v2 INT",
			set: func(st *State) { st.Config.ApproveRenamedColumns = true }},
		{name: "two statements", check: "alter", alter: "ADD COLUMN c INT; DROP TABLE t", want: "more than one statement"},
		{name: "another table", check: "alter", alter: "ALTER TABLE u ADD COLUMN c INT", want: "names table u but the migration is of d.t"},
		{name: "an algorithm the flavor cannot trust", check: "cut-over algorithm", alter: "ADD COLUMN c INT",
			set: func(st *State) {
				st.CutOverRefusal = func(dbconn.Flavor) error { return errors.New("atomic is not safe here") }
			},
			want: "atomic is not safe here"},
		{name: "a named CHECK kept on MySQL", check: "check constraint names", alter: "ADD COLUMN c INT", flavor: mysql,
			want: "CHECK constraint name v_pos of t cannot be kept"},
		{name: "a named CHECK dropped on MySQL", check: "check constraint names", alter: "DROP CHECK v_pos", flavor: mysql},
		{name: "a named CHECK on MariaDB", check: "check constraint names", alter: "ADD COLUMN c INT", flavor: dbconn.Flavor{MariaDB: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := noServerState(t, c.alter, c.flavor)
			if c.set != nil {
				c.set(st)
			}
			err := runNoServer(t, st, "alter")
			if c.check != "alter" && err == nil {
				err = runNoServer(t, st, c.check)
			}
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want a refusal containing %q", err, c.want)
			}
		})
	}
}

// The column mapping is planned from the two definitions alone, and refuses a ghost column it
// cannot fill.
func TestColumnsPlannedWithoutAServer(t *testing.T) {
	st := noServerState(t, "ADD COLUMN z INT NOT NULL", dbconn.Flavor{MariaDB: true})
	st.Plan.Ghost.Columns = append(st.Plan.Ghost.Columns, table.Column{Name: "z", DataType: "int", ColumnType: "int"})
	if err := runNoServer(t, st, "alter"); err != nil {
		t.Fatal(err)
	}
	st.DDL = plan.DDLSettings{SQLMode: "STRICT_TRANS_TABLES"}
	if err := runNoServer(t, st, "columns"); err != nil {
		t.Fatalf("columns: %v", err)
	}
	if len(st.Plan.Mapping.Added) != 1 || st.Plan.Mapping.Added[0] != "z" {
		t.Errorf("added columns %v, want [z]", st.Plan.Mapping.Added)
	}
}
