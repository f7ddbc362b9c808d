package cutover

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net"
	"sync"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-sql-driver/mysql"
)

// clientCut dials the cut-over's connections and can close one of them on the client side only,
// by its server connection id: the tool sees its statement fail at once (the socket is gone),
// while the server keeps the session and its statement, waiting on a metadata lock, until it
// notices. That is what a KILL landing while a RENAME is being granted looks like from the tool:
// an error, while the server still completes the rename. No seam in the tool is needed.
type clientCut struct {
	mu    sync.Mutex
	conns []*idConn
}

// idConn remembers the first bytes the server sent: the handshake, which carries the id.
type idConn struct {
	net.Conn
	mu    sync.Mutex
	first []byte
}

func (c *idConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if len(c.first) < 128 {
		c.first = append(c.first, p[:min(n, 128-len(c.first))]...)
	}
	c.mu.Unlock()
	return n, err
}

// id parses the handshake: 4-byte packet header, protocol version, NUL-terminated server
// version, then the connection id (4 bytes, little endian). 0 when not read yet.
func (c *idConn) id() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.first) < 5 {
		return 0
	}
	rest := c.first[5:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 || len(rest) < i+5 {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(rest[i+1 : i+5]))
}

func (cc *clientCut) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	ic := &idConn{Conn: c}
	cc.mu.Lock()
	cc.conns = append(cc.conns, ic)
	cc.mu.Unlock()
	return ic, nil
}

// cut closes, on the client side, the connection with server id.
func (cc *clientCut) cut(id int64) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, c := range cc.conns {
		if c.id() == id {
			return c.Conn.Close()
		}
	}
	return fmt.Errorf("no client connection with id %d", id)
}

// cuttablePool is a pool on the fixture's database whose connections cc can cut.
func (f *fixture) cuttablePool(cc *clientCut) *sql.DB {
	f.t.Helper()
	mc, err := mysql.ParseDSN(testenv.PrimaryConfig().DSN(testDB))
	if err != nil {
		f.t.Fatal(err)
	}
	mc.DialFunc = cc.dial
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		f.t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	f.t.Cleanup(func() { db.Close() })
	return db
}

// holdMDL opens a transaction on its own connection that reads name, so it holds a shared
// metadata lock on it until release is called.
func (f *fixture) holdMDL(ctx context.Context, name string) (release func(), err error) {
	conn, err := f.admin.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SELECT COUNT(*) FROM "+f.q(name)); err != nil {
		conn.Close()
		return nil, err
	}
	var once sync.Once
	return func() { //nolint:contextcheck // release runs after ctx (a hook's) may be done
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "COMMIT")
			conn.Close()
		})
	}, nil
}

// renameWaitingExcept reports whether a RENAME of this package's tables other than the connections
// in except waits on a metadata lock (other packages' tests run on the sandbox at the same time).
func (f *fixture) renameWaitingExcept(ctx context.Context, except ...int64) (bool, error) {
	rows, err := f.admin.QueryContext(ctx, `SELECT ID FROM `+dbconn.ProcesslistTable(ctx, f.admin)+`
		WHERE STATE = ? AND INFO LIKE 'RENAME%' AND INFO LIKE ?`, mdlWaitState, "%`"+testDB+"`%")
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return false, err
		}
		mine := false
		for _, e := range except {
			mine = mine || e == id
		}
		if !mine {
			return true, nil
		}
	}
	return false, rows.Err()
}
