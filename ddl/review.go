package ddl

import (
	"context"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// ReviewLines are the dry run's review of the prepared plan: whether the server can do the ALTER
// without a copy (a probe table, created and dropped here), then the plan's own review
// (plan.Plan.Review). Every line is advice; none refuses.
func ReviewLines(ctx context.Context, st *preflight.State) []string {
	return append(instantReview(ctx, st), st.Plan.Review(ctx, st.Primary)...)
}

// instantReview tries the ALTER on an empty copy of the original with ALGORITHM=INSTANT, then
// INPLACE with LOCK=NONE: when the server can do it without a copy, the tool's copy may be
// unnecessary. The copy is dropped at once.
func instantReview(ctx context.Context, st *preflight.State) []string {
	p := st.Plan
	spec, err := plan.ParseAlter(st.Config.Alter, st.Config.Database, st.Config.Table)
	name := "_" + p.Original.Name + "_glr"
	if err != nil || table.TooLong(name) {
		return nil
	}
	probe := table.Qualify(p.Original.Schema, name)
	if _, err := st.Primary.ExecContext(ctx, "CREATE TABLE "+probe+" LIKE "+table.Qualify(p.Original.Schema, p.Original.Name)); err != nil {
		return []string{"could not check whether the server can do this ALTER without a copy: " + err.Error()}
	}
	defer func() { _, _ = st.Primary.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+probe) }()
	if _, err := st.Primary.ExecContext(ctx, "ALTER TABLE "+probe+" "+spec.Body+", ALGORITHM=INSTANT"); err == nil {
		return []string{"the server can do this ALTER instantly (ALGORITHM=INSTANT, metadata only): no copy is needed; --attempt-instant-ddl does it that way"}
	}
	if _, err := st.Primary.ExecContext(ctx, "ALTER TABLE "+probe+" "+spec.Body+", ALGORITHM=INPLACE, LOCK=NONE"); err == nil {
		return []string{"the server can do this ALTER in place without blocking writes (ALGORITHM=INPLACE, LOCK=NONE), though it rebuilds or scans the table under its own control and a replica applies it in one long statement"}
	}
	return nil
}
