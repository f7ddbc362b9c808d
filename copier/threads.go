package copier

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// maxAutoThreads bounds the number of copy sessions AutoThreads chooses.
const maxAutoThreads = 8

// AutoThreads is --copy-threads=0's number of copy sessions, chosen from the primary db's
// @@thread_pool_size, and why.
func AutoThreads(ctx context.Context, db *sql.DB) (n int, why string, err error) {
	vars, err := dbconn.ReadVariables(ctx, db, "thread_pool_size")
	if err != nil {
		return 0, "", fmt.Errorf("choose the number of copy sessions: %w", err)
	}
	n, why = autoThreads(vars)
	return n, why, nil
}

// autoThreads is AutoThreads' choice from the primary's global variables: half its cores, at
// least 1 and at most maxAutoThreads. The cores are MariaDB's @@thread_pool_size (on Linux it
// defaults to the number of CPUs, whether or not the pool is in use); a server without it
// (MySQL) gets one session.
func autoThreads(vars map[string]string) (n int, why string) {
	v, ok := vars["thread_pool_size"]
	cores, err := strconv.Atoi(v)
	if !ok || err != nil || cores < 1 {
		return 1, "auto: the server has no @@thread_pool_size to count its cores by"
	}
	n = min(max(cores/2, 1), maxAutoThreads)
	return n, fmt.Sprintf("auto: half of @@thread_pool_size=%d (the server's cores), from 1 to %d", cores, maxAutoThreads)
}
