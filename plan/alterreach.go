package plan

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// The ALTER runs on the ghost table, and the dry run drops the ghost afterwards; so a clause that
// reaches another table would change that table for real, in a dry run too (EXCHANGE PARTITION
// moves the other table's rows into the ghost, where the dry run drops them). reachRefusal finds,
// before anything is created, every clause that names or creates a table other than the migrated
// one, and the clauses whose result a copy cannot reproduce, and refuses them with one line:
//
//   - EXCHANGE PARTITION p WITH TABLE x, CONVERT PARTITION p TO TABLE x, CONVERT TABLE x TO
//     PARTITION p: they move rows between the table and x (or create x);
//   - UNION = (...) (a MERGE table over other tables), CONNECTION = '...' (FEDERATED, CONNECT,
//     SPIDER tables reach other tables or servers) and any ENGINE but InnoDB (checked again on the
//     ghost, for a default engine the ALTER does not name);
//   - REFERENCES naming the migrated table (a self-referencing foreign key): on the ghost it
//     references the original, which the cut-over renames away, so no rename can ever complete;
//   - DROP PARTITION and TRUNCATE PARTITION: they delete rows, which the copy would bring back;
//   - DISCARD / IMPORT [PARTITION ...] TABLESPACE: they act on the table's files, not its rows.
//
// Other partition maintenance keeps every row where the server's ALTER keeps it and is migrated
// like any other clause (ADD, REORGANIZE, COALESCE PARTITION, PARTITION BY, REMOVE PARTITIONING;
// ANALYZE/CHECK/OPTIMIZE/REBUILD/REPAIR PARTITION run on the empty ghost and change nothing).
// A foreign key to another table only reads that table. RENAME [TO|AS] is refused by parseRename.

// reachRefusal returns the refusal for the first such clause of toks (the ALTER's clauses), or nil.
func reachRefusal(toks []token, schema, tbl string) error {
	for i, t := range toks {
		if t.Kind != sqltok.Word {
			continue
		}
		w := strings.ToUpper(t.Text)
		if w == "REFERENCES" {
			if err := selfReference(toks[i+1:], schema, tbl); err != nil {
				return err
			}
			continue
		}
		if t.depth != 0 {
			continue
		}
		if err := reachClause(w, toks[i+1:], tbl); err != nil {
			return err
		}
	}
	return nil
}

// reachClause judges one depth-0 keyword w followed by rest.
func reachClause(w string, rest []token, tbl string) error {
	next := func(i int) string {
		if i < len(rest) && rest[i].Kind == sqltok.Word {
			return strings.ToUpper(rest[i].Text)
		}
		return ""
	}
	native := "; run it natively with ALTER TABLE " + tbl + ", outside go-ghostlite"
	switch {
	case w == "EXCHANGE" && next(0) == "PARTITION":
		return fmt.Errorf("the ALTER exchanges a partition with another table (EXCHANGE PARTITION ... WITH TABLE %s): the ALTER runs on the ghost table, so that table's rows would be moved into it%s",
			nameAfter(rest, "TABLE"), native)
	case w == "CONVERT" && next(0) == "PARTITION":
		return fmt.Errorf("the ALTER converts a partition into a table of its own (CONVERT PARTITION ... TO TABLE %s): it would create another table%s",
			nameAfter(rest, "TABLE"), native)
	case w == "CONVERT" && next(0) == "TABLE":
		return fmt.Errorf("the ALTER converts another table into a partition (CONVERT TABLE %s TO PARTITION): that table would be moved into the ghost table%s",
			nameAfter(rest, "TABLE"), native)
	case w == "ENGINE" && engineOf(rest) != "" && !strings.EqualFold(engineOf(rest), "InnoDB"):
		return fmt.Errorf("the ALTER makes the table use the %s engine; go-ghostlite migrates to InnoDB only: remove ENGINE= from --alter", engineOf(rest))
	case w == "CONNECTION" && len(rest) > 0 && (rest[0].isPunct('=') || rest[0].Kind == sqltok.String):
		return fmt.Errorf("the ALTER gives the table a CONNECTION to another table or server (FEDERATED, CONNECT, SPIDER): go-ghostlite migrates InnoDB tables only%s", native)
	case w == "UNION" && (len(rest) > 0 && (rest[0].isPunct('=') || rest[0].isPunct('('))):
		return fmt.Errorf("the ALTER gives the table a UNION of other tables (a MERGE table): go-ghostlite migrates InnoDB tables only%s", native)
	case (w == "DROP" || w == "TRUNCATE") && next(0) == "PARTITION":
		return fmt.Errorf("the ALTER has %s PARTITION, which deletes the partition's rows: a copy into a ghost table would bring them back%s (it changes only the named partitions)",
			w, native)
	case (w == "DISCARD" || w == "IMPORT") && (next(0) == "TABLESPACE" || next(0) == "PARTITION"):
		return fmt.Errorf("the ALTER has %s ... TABLESPACE, which acts on the table's files, not on its rows: it cannot be migrated through a ghost table%s", w, native)
	}
	return nil
}

// engineOf reads the engine after ENGINE [=] (a name or a string), "" if none.
func engineOf(rest []token) string {
	i := 0
	if i < len(rest) && rest[i].isPunct('=') {
		i++
	}
	if i < len(rest) && rest[i].Kind == sqltok.String {
		return rest[i].Text
	}
	n, _ := tokenName(rest, i)
	return n
}

// nameAfter returns the name following the first keyword kw in rest, for messages ("?" if none).
func nameAfter(rest []token, kw string) string {
	for i, t := range rest {
		if t.isWord(kw) {
			if n, ok := tokenName(rest, i+1); ok {
				if i+3 < len(rest) && rest[i+2].isPunct('.') {
					if n2, ok := tokenName(rest, i+3); ok {
						return n + "." + n2
					}
				}
				return n
			}
		}
	}
	return "?"
}

// selfReference refuses REFERENCES [schema.]tbl, a foreign key from the table to itself. Names
// compare case-insensitively: a refusal of a twin differing only in case is safe, a missed one is not.
func selfReference(rest []token, schema, tbl string) error {
	first, ok := tokenName(rest, 0)
	if !ok {
		return nil
	}
	gotSchema, gotTable := schema, first
	if len(rest) > 2 && rest[1].isPunct('.') {
		if second, ok := tokenName(rest, 2); ok {
			gotSchema, gotTable = first, second
		}
	}
	if strings.EqualFold(gotSchema, schema) && strings.EqualFold(gotTable, tbl) {
		return fmt.Errorf("the ALTER adds a foreign key referencing %s itself: on the ghost table it would reference the original, which the cut-over renames away, so the swap can never complete; migrate without it, then add it natively with ALTER TABLE %s ADD FOREIGN KEY ... REFERENCES %s",
			tbl, tbl, tbl)
	}
	return nil
}
