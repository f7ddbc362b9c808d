package chaos

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

// The write loads of the chaos tests: internal/loadgen, with the ops below. A fault test expects
// some writes to fail (the table is missing for a moment, a connection dies): every failure is
// tolerated, and the load's journal says which writes the server acknowledged.
const (
	opInsert = 0 // inserts a row: args (id, ...), or none when the table gives the id (AUTO_INCREMENT)
	opUpdate = 1 // raises the value v of one row: args (v, id, ...)
)

// startLoad starts a paced load of the ops (opInsert first, then opUpdate if any) on db; see
// loadgen.Config for skipMissed.
func startLoad(db *sql.DB, rate float64, workers int, skipMissed bool, ops ...loadgen.Op) *loadgen.Load {
	return loadgen.Start(context.Background(), loadgen.Config{
		DB: db, Rate: rate, Workers: workers, Ops: ops, SkipMissed: skipMissed,
		OnError: func(int, error) bool { return true },
	})
}

// ledger is what a load got acknowledged on one table, read from its journal: every inserted id,
// the highest value acknowledged per updated row, when writes were acknowledged, when writes
// failed because the table was missing (error 1146), and every other failure.
type ledger struct {
	inserted  []int64
	updated   map[int64]int64 // id -> highest acknowledged v
	ackTimes  []time.Time
	missingAt []time.Time
	other     []error
}

// tally reads the journal of a load of opInsert and opUpdate writes.
func tally(writes []loadgen.Write) *ledger {
	w := &ledger{updated: map[int64]int64{}}
	for _, wr := range writes {
		if !wr.Acked() {
			if wr.Errno() == 1146 {
				w.missingAt = append(w.missingAt, wr.End)
			} else {
				w.other = append(w.other, wr.Err)
			}
			continue
		}
		w.ackTimes = append(w.ackTimes, wr.End)
		switch wr.Op {
		case opInsert:
			id := wr.InsertID
			if len(wr.Args) > 0 {
				id = wr.Args[0].(int64)
			}
			w.inserted = append(w.inserted, id)
		case opUpdate:
			v, id := wr.Args[0].(int64), wr.Args[1].(int64)
			w.updated[id] = max(w.updated[id], v)
		}
	}
	return w
}

// acked is how many writes were acknowledged.
func (w *ledger) acked() int { return len(w.ackTimes) }

// longestOutage is the longest time the table's name was seen missing: from the first error 1146
// of a burst to the first acknowledged write after the burst's last one (bursts are separated by
// an acknowledged write).
func (w *ledger) longestOutage() time.Duration {
	if len(w.missingAt) == 0 {
		return 0
	}
	miss := append([]time.Time(nil), w.missingAt...)
	acks := append([]time.Time(nil), w.ackTimes...)
	sort.Slice(miss, func(i, j int) bool { return miss[i].Before(miss[j]) })
	sort.Slice(acks, func(i, j int) bool { return acks[i].Before(acks[j]) })
	var longest time.Duration
	i := 0
	for i < len(miss) {
		start := miss[i]
		// First ack after start ends the burst (if none, the burst lasts to the last error).
		k := sort.Search(len(acks), func(k int) bool { return acks[k].After(start) })
		end := miss[len(miss)-1]
		if k < len(acks) {
			end = acks[k]
		}
		for i < len(miss) && !miss[i].After(end) {
			i++
		}
		longest = max(longest, end.Sub(start))
	}
	return longest
}
