package binlogapply

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"

	"github.com/go-mysql-org/go-mysql/client"
)

// The binlog reader's connections are go-mysql's, not database/sql's: dbconn's bound of the
// connect and the handshake (--mysql-timeout, dbconn.Config.Timeout) does not reach them by
// itself. go-mysql v1.16.0 dials through BinlogSyncerConfig.Dialer with a fixed 10 s bound and
// reads the handshake under ReadTimeout (the stream's silence bound, which must exceed the
// heartbeat), and never bounds a write. connectBound gives every connection it opens (the dump
// connection and the one that kills a previous dump) the timeout: the TCP connect, and then
// the handshake as a whole, end within it, and every write ends within it after that (the
// reader writes only a few small commands: a write that long means the peer is gone). Reads
// after the handshake keep ReadTimeout.

// defaultConnectTimeout is dbconn's bound when --mysql-timeout is 0.
const defaultConnectTimeout = 10 * time.Second

// connectBound dials the binlog reader's connections within timeout.
type connectBound struct{ timeout time.Duration }

func newConnectBound(timeout time.Duration) connectBound {
	if timeout <= 0 {
		timeout = defaultConnectTimeout
	}
	return connectBound{timeout: timeout}
}

// dial is a client.Dialer.
func (b connectBound) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: b.timeout, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	bc := &boundedConn{Conn: c, timeout: b.timeout, handshakeEnd: time.Now().Add(b.timeout)}
	if err := c.SetDeadline(bc.handshakeEnd); err != nil {
		_ = c.Close()
		return nil, err
	}
	return bc, nil
}

// handshakeDone ends the handshake bound of c's connection (a BinlogSyncerConfig.Option: go-mysql
// calls it once the handshake of the dump connection completed). Its reads then have only
// go-mysql's ReadTimeout.
func handshakeDone(c *client.Conn) error {
	if c == nil || c.Conn == nil {
		return nil
	}
	nc := c.Conn.Conn
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	if bc, ok := nc.(*boundedConn); ok {
		bc.endHandshake()
	}
	return nil
}

// boundedConn is a connection whose deadlines never pass handshakeEnd until endHandshake, and
// whose writes each end within timeout.
type boundedConn struct {
	net.Conn
	timeout time.Duration

	mu           sync.Mutex
	handshakeEnd time.Time // zero once the handshake is over
}

func (c *boundedConn) endHandshake() {
	c.mu.Lock()
	c.handshakeEnd = time.Time{}
	c.mu.Unlock()
}

// clamp is t, or the handshake's end when that comes first (a zero t means no deadline).
func (c *boundedConn) clamp(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.handshakeEnd.IsZero() && (t.IsZero() || t.After(c.handshakeEnd)) {
		return c.handshakeEnd
	}
	return t
}

func (c *boundedConn) SetDeadline(t time.Time) error     { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *boundedConn) SetReadDeadline(t time.Time) error { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *boundedConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clamp(t))
}

// Write ends within the timeout (and within the handshake's bound while it lasts).
func (c *boundedConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(c.clamp(time.Now().Add(c.timeout))); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
