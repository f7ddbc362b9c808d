package sqltok

import (
	"context"
	"database/sql"
	"strconv"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// serverFragments are appended to "SELECT 1 ". Each is a sum of terms (+N, -N, +LENGTH('...'))
// mixed with every comment and quoting form; the server's answer says which parts it read.
var serverFragments = []string{
	"+1", "-- +1", "--\n+1", "--\t+1", "--", "--\x01 +1", "--\r+1\n+2", "--1", "- -1",
	"#+1\n+2", "/* +1 */ +2", "/* +1 /* +10 */ +100 */", "*/ +1", "/*M +1 */ +2",
	"/*! +1 */", "/*!+1*/+1", "/*!*/+1", "/*!50100 +1 */", "/*!50100+1*/", "/*!50699 +1 */", "/*!50700 +1 */",
	"/*!80023 +1 */", "/*!99999 +1 */", "/*!100000 +1 */", "/*!999999 +1 */", "/*!00000 +1 */",
	"/*!999999 +1 /* +10 */ +100 */", "/*!80023 +1 /* +10 */ +100 */",
	"/*M! +1 */", "/*M!+1*/", "/*M!50700 +1 */", "/*M!100100 +1 */", "/*M!999999 +1 */",
	"/*! +1 /* +10 */ +100 */", "/*! +1 /*! +10 */ +100 */", "/*!50100 +1 /*!50100 +10 */ +100 */",
	"/*! + LENGTH('*/') */", "/*! # +1 */ +2 */", "/*!  -- c\n+1 */", "/*!", "/*! +1", "/* x", "/*!999999 x",
	`+ LENGTH('a\'b')`, "+ LENGTH('a''b')", `+ LENGTH("a""b")`, `+ LENGTH('a\\')`, `+ LENGTH('a\')`,
	`+ LENGTH('a\') + LENGTH('b')`, "+ LENGTH('-- x')", "+ LENGTH('/* x')", "+ LENGTH('#')",
	"+ LENGTH('it''s /*! +1 */')", "+ LENGTH(`x`)", `+ LENGTH("ab")`, `+ LENGTH('\%')`, `+ LENGTH('\n')`,
	`+ LENGTH("/*! +1 */")`, "+ LENGTH('open", "+ LENGTH(`open",
}

// TestTokenizeAgreesWithServer runs every fragment on the sandbox under three sql_modes and checks
// the tokenizer reads it as the server does: the server refuses it exactly when the tokenizer
// refuses it (or leaves something that is not a sum), and otherwise both give the same sum.
func TestTokenizeAgreesWithServer(t *testing.T) {
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	ctx := context.Background()
	fl, err := dbconn.DetectFlavor(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	base := Options{ServerVersion: fl.Major*10000 + fl.Minor*100 + fl.Patch, MariaDB: fl.MariaDB}
	modes := []struct {
		mode string
		o    Options
	}{
		{"", base},
		{"NO_BACKSLASH_ESCAPES", Options{NoBackslashEscapes: true, ServerVersion: base.ServerVersion, MariaDB: base.MariaDB}},
		{"ANSI_QUOTES", Options{AnsiQuotes: true, ServerVersion: base.ServerVersion, MariaDB: base.MariaDB}},
	}
	for _, m := range modes {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = '"+m.mode+"'"); err != nil {
			t.Fatal(err)
		}
		for _, f := range serverFragments {
			q := "SELECT 1 " + f
			server, serverErr := selectInt(ctx, conn, q)
			ours, ok := evalSum(q, m.o)
			switch {
			case serverErr != nil && ok:
				t.Errorf("[%s] %q: server refuses (%v), tokenizer reads %d", m.mode, q, serverErr, ours)
			case serverErr == nil && !ok:
				t.Errorf("[%s] %q: server reads %d, tokenizer cannot", m.mode, q, server)
			case serverErr == nil && server != ours:
				t.Errorf("[%s] %q: server reads %d, tokenizer %d", m.mode, q, server, ours)
			}
		}
		conn.Close()
	}
}

func selectInt(ctx context.Context, conn *sql.Conn, q string) (int64, error) {
	var n int64
	err := conn.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// evalSum evaluates "SELECT term {(+|-) term}" from the tokens of q, where a term is a number or
// LENGTH('string') after any number of unary signs. ok is false when q does not tokenize or is
// not such a sum.
func evalSum(q string, o Options) (sum int64, ok bool) {
	toks, err := Tokenize(q, o)
	if err != nil || len(toks) < 2 || !toks[0].IsWord("SELECT") {
		return 0, false
	}
	toks = toks[1:]
	first := true
	for len(toks) > 0 {
		sign := int64(1)
		if !first {
			if !toks[0].IsPunct('+') && !toks[0].IsPunct('-') {
				return 0, false
			}
			if toks[0].IsPunct('-') {
				sign = -1
			}
			toks = toks[1:]
		}
		first = false
		v, rest, ok := term(toks)
		if !ok {
			return 0, false
		}
		sum += sign * v
		toks = rest
	}
	return sum, true
}

func term(toks []Token) (int64, []Token, bool) {
	sign := int64(1)
	for len(toks) > 0 && (toks[0].IsPunct('-') || toks[0].IsPunct('+')) {
		if toks[0].IsPunct('-') {
			sign = -sign
		}
		toks = toks[1:]
	}
	if len(toks) >= 4 && toks[0].IsWord("LENGTH") && toks[1].IsPunct('(') && toks[2].Kind == String && toks[3].IsPunct(')') {
		return sign * int64(len(toks[2].Text)), toks[4:], true
	}
	if len(toks) == 0 || toks[0].Kind != Word {
		return 0, nil, false
	}
	n, err := strconv.ParseInt(toks[0].Text, 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return sign * n, toks[1:], true
}

func TestEvalSum(t *testing.T) {
	for q, want := range map[string]int64{"SELECT 1 + 2": 3, "SELECT 1 --1": 2, "SELECT 1 + LENGTH('ab') - -3": 6} {
		if got, ok := evalSum(q, Options{}); !ok || got != want {
			t.Errorf("evalSum(%q) = %d, %v; want %d", q, got, ok, want)
		}
	}
	for _, q := range []string{"SELECT 1 2", "SELECT 1 + x", "SELECT 1 +", "SELECT 1 + LENGTH(`x`)"} {
		if _, ok := evalSum(q, Options{}); ok {
			t.Errorf("evalSum(%q) accepted", q)
		}
	}
}
