// Command demoload is script/demo's write load: inserts, updates and deletes on demo.orders at a
// steady rate on a few connections (internal/loadgen), until it is sent SIGTERM or SIGINT; it then
// prints how many writes the server acknowledged and how long the slowest waited.
//
// Invariants: it writes only to the table it is given; it exits non-zero when any write failed.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3306", "server host:port")
	user := flag.String("user", "root", "user")
	database := flag.String("database", "demo", "database of the orders table")
	rate := flag.Float64("rate", 400, "writes per second over all connections")
	ids := flag.Int("ids", 200000, "ids the updates and deletes pick from (1..ids)")
	flag.Parse()

	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", *addr, *user, *database
	cfg.Passwd = os.Getenv("DEMOLOAD_PASSWORD")
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		fmt.Fprintln(os.Stderr, "demoload:", err)
		os.Exit(1)
	}
	defer func() { _ = db.Close() }()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	st := loadgen.Run(ctx, loadgen.Config{DB: db, Rate: *rate, Workers: 4, Ops: orderOps(*ids)})
	fmt.Printf("%d writes acknowledged, %d failed, the slowest waited %s\n", st.Acked, st.Failed, st.MaxLatency)
	if st.Failed > 0 {
		os.Exit(1)
	}
}

// orderOps are the demo's writes: a new order, an order paid, an order deleted.
func orderOps(ids int) []loadgen.Op {
	return []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO orders (customer_id, amount, note, created_at) VALUES (?, ?, 'live', NOW(6))", []any{r.Intn(5000), r.Intn(100000) / 100}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE id = ?", []any{1 + r.Intn(ids)}
		},
		func(r *rand.Rand) (string, []any) {
			return "DELETE FROM orders WHERE id = ?", []any{1 + r.Intn(ids)}
		},
	}
}
