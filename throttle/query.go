package throttle

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// --throttle-query runs with the tool's privileges every second, and the interactive command
// throttle-query= changes it while the migration runs; so it must be a query that can only read.
// CheckQuery accepts one SELECT and refuses anything else before it ever runs; RunQuery runs it in
// a read-only transaction, so that a stored function or a clause this check does not know still
// cannot write a table.

// sideEffects are functions a SELECT may call that change something outside a read-only
// transaction's reach (named locks, sequences).
var sideEffects = map[string]bool{"GET_LOCK": true, "RELEASE_LOCK": true, "RELEASE_ALL_LOCKS": true,
	"NEXTVAL": true, "SETVAL": true, "MASTER_POS_WAIT": true, "MASTER_GTID_WAIT": true,
	"SOURCE_POS_WAIT": true, "WAIT_FOR_EXECUTED_GTID_SET": true}

// CheckQuery returns nil when q is empty or one read-only SELECT, else a one-line refusal (to
// follow the flag's or the command's name).
func CheckQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("must be one read-only SELECT (a result above 0 throttles), e.g. \"SELECT COUNT(*) > 50 FROM information_schema.PROCESSLIST\": %s", why)
	}
	toks, err := sqltok.Tokenize(q, sqltok.Options{})
	if err != nil {
		return refuse(err.Error())
	}
	if n := len(toks); n > 0 && toks[n-1].IsPunct(';') {
		toks = toks[:n-1]
	}
	if len(toks) == 0 || !toks[0].IsWord("SELECT") {
		return refuse("it does not start with SELECT")
	}
	for i, t := range toks {
		switch {
		case t.Executable:
			return refuse("it has an executable comment (/*! ... */)")
		case t.IsPunct(';'):
			return refuse("it has more than one statement")
		case t.IsWord("INTO"):
			return refuse("SELECT ... INTO writes a file or variables")
		case t.IsWord("FOR") && i+1 < len(toks) && toks[i+1].IsWord("UPDATE"),
			t.IsWord("LOCK") && i+1 < len(toks) && toks[i+1].IsWord("IN"):
			return refuse("it locks rows (FOR UPDATE, LOCK IN SHARE MODE)")
		case t.Kind == sqltok.Word && sideEffects[strings.ToUpper(t.Text)] && i+1 < len(toks) && toks[i+1].IsPunct('('):
			return refuse(strings.ToUpper(t.Text) + "() changes state outside the query")
		}
	}
	return nil
}

// RunQuery runs the throttle query q (checked by CheckQuery) in a read-only transaction on db
// and returns its first column (NULL reads as 0).
func RunQuery(ctx context.Context, db *sql.DB, q string) (int64, error) {
	if err := CheckQuery(q); err != nil {
		return 0, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("start a read-only transaction: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to keep
	var n sql.NullInt64
	if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return 0, err
	}
	return n.Int64, nil
}
