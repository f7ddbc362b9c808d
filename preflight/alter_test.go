package preflight

import (
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/plan"
)

func TestRenameRefusal(t *testing.T) {
	one := []plan.ColumnRename{{From: "a", To: "b"}}
	err := renameRefusal(one, false, false)
	want := "it seems the ALTER statement renames columns, as follows: a to b; as precaution, you are asked to confirm: pass --approve-renamed-columns to copy a's data into b, or --skip-renamed-columns to leave b empty"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	two := []plan.ColumnRename{{From: "a", To: "b"}, {From: "c", To: "d"}}
	if err := renameRefusal(two, false, false); err == nil || !strings.Contains(err.Error(), "renames columns, as follows: a to b, c to d;") {
		t.Fatalf("two renames: %v", err)
	}
	if renameRefusal(one, true, false) != nil || renameRefusal(one, false, true) != nil || renameRefusal(nil, false, false) != nil {
		t.Fatal("approved, skipped or absent renames refused")
	}
}
