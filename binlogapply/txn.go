package binlogapply

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Transaction control in a row-based binary log.
//
// A transaction is an event group: BEGIN (a Query event, or a GTID event that says so), its row
// events, and its end. Only an XID event or a Query COMMIT ends it with its changes kept. Inside a
// group MariaDB and MySQL also log SAVEPOINT and ROLLBACK TO SAVEPOINT, and a group that touched a
// non-transactional table can end in ROLLBACK with the rolled-back row events still logged before
// it. An XA transaction is logged at XA PREPARE (its group ends with an XA_prepare event) and its
// fate is a later group of its own: XA COMMIT or XA ROLLBACK naming its xid. XA COMMIT ... ONE
// PHASE and XA ROLLBACK of a transaction that was never prepared are logged as ordinary groups.
//
// The statements are written by the server itself, in a fixed form (SAVEPOINT `s`,
// ROLLBACK TO `s`, XA COMMIT X'..',X'..',1); parsing them needs no general SQL lexer.

type txnControl int

const (
	txnOther      txnControl = iota // not transaction control: DDL or another statement logged as text
	txnBegin                        // BEGIN, START TRANSACTION
	txnXAStart                      // XA START (MySQL logs it as a query): begins a group that may roll back
	txnCommit                       // COMMIT: the group's changes are kept
	txnRollback                     // ROLLBACK: the group's changes are undone
	txnSavepoint                    // SAVEPOINT name
	txnRollbackTo                   // ROLLBACK TO [SAVEPOINT] name
	txnXAEnd                        // XA END xid: inside the group, before XA PREPARE
	txnXACommit                     // XA COMMIT xid: a prepared transaction is committed
	txnXARollback                   // XA ROLLBACK xid: a prepared transaction is undone
)

// txnStmt is a classified Query event.
type txnStmt struct {
	kind txnControl
	name string // savepoint name, lower case (savepoint names are case-insensitive)
	xid  string // xidKey of an XA statement
}

// isTxnControl classifies statement q.
func isTxnControl(q string) txnControl { return parseTxnControl(q).kind }

// parseTxnControl classifies statement q and reads the savepoint name or the xid it names.
func parseTxnControl(q string) txnStmt {
	q = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(q), ";"))
	w1, rest := cutWord(q)
	switch strings.ToUpper(w1) {
	case "BEGIN":
		if rest == "" || strings.EqualFold(rest, "WORK") {
			return txnStmt{kind: txnBegin}
		}
	case "START":
		if w2, _ := cutWord(rest); strings.EqualFold(w2, "TRANSACTION") {
			return txnStmt{kind: txnBegin}
		}
	case "COMMIT":
		if rest == "" || strings.EqualFold(rest, "WORK") {
			return txnStmt{kind: txnCommit}
		}
	case "SAVEPOINT":
		if name, ok := savepointName(rest); ok {
			return txnStmt{kind: txnSavepoint, name: name}
		}
	case "ROLLBACK":
		return parseRollback(rest)
	case "XA":
		return parseXA(rest)
	}
	return txnStmt{kind: txnOther}
}

func parseRollback(rest string) txnStmt {
	w, after := cutWord(rest)
	if strings.EqualFold(w, "WORK") {
		w, after = cutWord(after)
	}
	switch {
	case w == "":
		return txnStmt{kind: txnRollback}
	case strings.EqualFold(w, "TO"):
		if w2, a2 := cutWord(after); strings.EqualFold(w2, "SAVEPOINT") {
			after = a2
		}
		if name, ok := savepointName(after); ok {
			return txnStmt{kind: txnRollbackTo, name: name}
		}
	}
	return txnStmt{kind: txnOther}
}

func parseXA(rest string) txnStmt {
	w, after := cutWord(rest)
	kind := txnOther
	switch strings.ToUpper(w) {
	case "START", "BEGIN":
		return txnStmt{kind: txnXAStart}
	case "END":
		return txnStmt{kind: txnXAEnd}
	case "COMMIT":
		kind = txnXACommit
	case "ROLLBACK":
		kind = txnXARollback
	default:
		return txnStmt{kind: txnOther}
	}
	key, tail, ok := parseXid(after)
	if !ok {
		return txnStmt{kind: txnOther}
	}
	if kind == txnXACommit && strings.EqualFold(strings.Join(strings.Fields(tail), " "), "ONE PHASE") {
		// One phase: never prepared, so never logged this way by the server; read as a commit.
		return txnStmt{kind: txnCommit}
	}
	if strings.TrimSpace(tail) != "" {
		return txnStmt{kind: txnOther}
	}
	return txnStmt{kind: kind, xid: key}
}

// cutWord splits off the first run of letters, digits and underscores.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] == '_' || (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') || (s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// savepointName reads a bare or `quoted` identifier that makes up all of s.
func savepointName(s string) (string, bool) {
	if strings.HasPrefix(s, "`") {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '`' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '`' {
				b.WriteByte('`')
				i++
				continue
			}
			if strings.TrimSpace(s[i+1:]) != "" {
				return "", false
			}
			return strings.ToLower(b.String()), true
		}
		return "", false
	}
	w, rest := cutWord(s)
	if w == "" || rest != "" {
		return "", false
	}
	return strings.ToLower(w), true
}

// parseXid reads "gtrid [, bqual [, formatID]]" where gtrid and bqual are 'string' or X'hex'
// literals, and returns the xid's key and what follows it.
func parseXid(s string) (key, tail string, ok bool) {
	gtrid, s, ok := xidPart(s)
	if !ok {
		return "", "", false
	}
	var bqual []byte
	format := uint64(1)
	if strings.HasPrefix(s, ",") {
		if bqual, s, ok = xidPart(s[1:]); !ok {
			return "", "", false
		}
		if strings.HasPrefix(s, ",") {
			num, after := cutWord(s[1:])
			n, err := strconv.ParseUint(num, 10, 32)
			if err != nil {
				return "", "", false
			}
			format, s = n, after
		}
	}
	return xidKey(uint32(format), gtrid, bqual), s, true
}

// xidPart reads one 'string' or X'hex' literal at the start of s.
func xidPart(s string) ([]byte, string, bool) {
	s = strings.TrimSpace(s)
	hexForm := len(s) > 0 && (s[0] == 'X' || s[0] == 'x')
	if hexForm {
		s = s[1:]
	}
	if len(s) < 2 || s[0] != '\'' {
		return nil, "", false
	}
	end := strings.IndexByte(s[1:], '\'')
	if end < 0 {
		return nil, "", false
	}
	lit := s[1 : 1+end]
	rest := strings.TrimSpace(s[2+end:])
	if !hexForm {
		if strings.ContainsRune(lit, '\\') {
			return nil, "", false // escapes: never in the server's own form
		}
		return []byte(lit), rest, true
	}
	b, err := hex.DecodeString(lit)
	if err != nil {
		return nil, "", false
	}
	return b, rest, true
}

// xidKey identifies an XA transaction in both its logged forms (XA_prepare event, XA statement).
func xidKey(format uint32, gtrid, bqual []byte) string {
	return fmt.Sprintf("%d:%x:%x", format, gtrid, bqual)
}

// xaPrepare decodes an XA_prepare event's body: one_phase, formatID, gtrid and bqual lengths, data.
func xaPrepare(data []byte) (key string, onePhase bool, err error) {
	if len(data) < 13 {
		return "", false, fmt.Errorf("XA_prepare event of %d bytes", len(data))
	}
	onePhase = data[0] != 0
	format := binary.LittleEndian.Uint32(data[1:])
	gl, bl := binary.LittleEndian.Uint32(data[5:]), binary.LittleEndian.Uint32(data[9:])
	if gl > 64 || bl > 64 || 13+int(gl)+int(bl) > len(data) {
		return "", false, fmt.Errorf("XA_prepare event with xid lengths %d and %d in %d bytes", gl, bl, len(data))
	}
	body := data[13:]
	return xidKey(format, body[:gl], body[gl:gl+bl]), onePhase, nil
}
