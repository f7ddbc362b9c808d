package plan

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ColumnMapping is how the original's columns reach the ghost.
type ColumnMapping struct {
	Pairs          []ColumnPair      // copied: original -> ghost, in the original's order
	Renames        map[string]string // applied renames: original name -> ghost name
	Dropped        []string          // original columns the ghost does not have
	SkippedRenamed []string          // "a -> b": renamed columns not copied (--skip-renamed-columns)
	Added          []string          // ghost columns nothing is copied into: they get their defaults
	Generated      []string          // generated on either side: computed by the server, never copied
}

// MapColumns matches columns by name after the ALTER's renames. A column whose name a rename
// gives to another column is not matched by name (its name now belongs to the renamed column),
// nor is a column the ALTER drops and adds again (recreated): the new one gets its default.
func MapColumns(orig, ghost *table.Table, renames []ColumnRename, recreated []string, skipRenamed bool) (ColumnMapping, error) {
	renameOf := map[string]string{}
	target := map[string]bool{}
	for _, c := range recreated {
		target[strings.ToLower(c)] = true
	}
	for _, r := range renames {
		renameOf[strings.ToLower(r.From)] = r.To
		target[strings.ToLower(r.To)] = true
	}
	m := ColumnMapping{Renames: map[string]string{}}
	used := map[string]bool{}
	for _, oc := range orig.Columns {
		to, renamed := renameOf[strings.ToLower(oc.Name)]
		if renamed {
			m.Renames[oc.Name] = to
		}
		if oc.Generated {
			m.Generated = append(m.Generated, oc.Name)
			if !renamed {
				to = oc.Name
			}
			if gc, ok := ghost.Column(to); ok && gc.Generated {
				used[strings.ToLower(gc.Name)] = true // still generated: listed once
			}
			continue
		}
		switch {
		case renamed && skipRenamed:
			m.SkippedRenamed = append(m.SkippedRenamed, oc.Name+" -> "+to)
			continue
		case !renamed && target[strings.ToLower(oc.Name)]:
			m.Dropped = append(m.Dropped, oc.Name)
			continue
		case !renamed:
			to = oc.Name
		}
		gc, ok := ghost.Column(to)
		if !ok {
			m.Dropped = append(m.Dropped, oc.Name)
			continue
		}
		if gc.Generated {
			m.Generated = append(m.Generated, gc.Name)
			used[strings.ToLower(gc.Name)] = true
			continue
		}
		shift, err := table.ZoneShiftOf(&oc, gc)
		if err != nil {
			return m, err
		}
		m.Pairs = append(m.Pairs, ColumnPair{Original: oc.Name, Ghost: gc.Name, Shift: shift})
		used[strings.ToLower(gc.Name)] = true
	}
	for _, gc := range ghost.Columns {
		if used[strings.ToLower(gc.Name)] {
			continue
		}
		if gc.Generated {
			m.Generated = append(m.Generated, gc.Name)
		} else {
			m.Added = append(m.Added, gc.Name)
		}
	}
	if len(m.Pairs) == 0 {
		return m, fmt.Errorf("the original %s and the altered table share no column: there is nothing to copy", orig.Name)
	}
	return m, nil
}

// DescribeKey is "name (col, ...)", for messages.
func DescribeKey(k table.Key) string {
	return fmt.Sprintf("%s (%s)", k.Name, strings.Join(k.Columns, ", "))
}

// SameColumns says whether a and b name the same columns in the same order (case-insensitively).
func SameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
