// Package dbconn opens the connections go-ghostlite uses and knows the differences between server
// flavors (MariaDB, MySQL 8.0, MySQL 8.4) that the rest of the tool must not care about.
//
// Invariants: every session sets what the tool relies on instead of inheriting the server's
// globals (session.go: autocommit, isolation, timeouts). Every session that writes migrated data
// runs with time_zone='+00:00', a binary
// connection character set (no value is converted on the way) and a strict sql_mode that keeps
// NO_AUTO_VALUE_ON_ZERO, so a narrowing ALTER fails instead of truncating. Values are read with
// parseTime=false so temporal values travel as the server's own strings. Every connection to a
// server (pools from Open, and the binlog stream through Config.TLSConfig) uses the same TLS
// setting, Config.TLS (tls.go): with --ssl none is plaintext.
package dbconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Config says where a server is and how to log in.
type Config struct {
	Host     string
	Port     int
	User     string
	Password string
	// Timeout bounds connecting; zero means 10 seconds.
	Timeout time.Duration
	// MultiStatements lets one round trip carry several statements. Only for sessions whose SQL the
	// tool builds itself (values are interpolated and escaped by the driver).
	MultiStatements bool
	// TLS encrypts and verifies every connection to the server (tls.go); nil is plaintext.
	TLS *TLS
	// NoZeroDate and NoZeroInDate add NO_ZERO_DATE and NO_ZERO_IN_DATE to the writers' sql_mode
	// (WriterMode): set when the server's own ALTER, run in a strict global sql_mode with them,
	// refuses a zero date ('0000-00-00') or a date with a zero month or day ('2020-00-10') stored
	// into a temporal column, so that the copy and the applier refuse the same rows.
	NoZeroDate, NoZeroInDate bool
	// ValueModes are the flags of the server's global sql_mode that change what a statement
	// stores (ValueModes, sqlmode.go), added to the writers' sql_mode so that the copy and the
	// applier store what the server's own ALTER stores.
	ValueModes []string

	// serverErrorCount leaves max_error_count at the server's value: MySQL 9.7 lets only an
	// account with SESSION_VARIABLES_ADMIN set it (Open falls back to this).
	serverErrorCount bool
}

// Addr is host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// WriterSQLMode is the sql_mode of every session that writes to the ghost table.
const WriterSQLMode = "STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO"

// WriterMode is the sql_mode of c's writer sessions: WriterSQLMode, the zero date checks c asks
// for and the server's flags that change stored values (sqlmode.go).
func (c Config) WriterMode() string {
	mode := WriterSQLMode
	for _, m := range c.ValueModes {
		mode += "," + m
	}
	if c.NoZeroDate {
		mode += ",NO_ZERO_DATE"
	}
	if c.NoZeroInDate {
		mode += ",NO_ZERO_IN_DATE"
	}
	return mode
}

// MaxErrorCount is the writer sessions' max_error_count, the largest MariaDB and MySQL accept.
const MaxErrorCount = 65535

// DSN builds a go-sql-driver DSN for schema (may be empty) with the session settings of a writer:
// UTC session time zone, binary character set, strict sql_mode, temporal values as strings. A DSN
// cannot carry c.TLS: connections that must honour --ssl use Open (or DriverConfig).
func (c Config) DSN(schema string) string {
	mc := mysql.NewConfig()
	mc.User = c.User
	mc.Passwd = c.Password
	mc.Net = "tcp"
	mc.Addr = c.Addr()
	mc.DBName = schema
	mc.Timeout = c.Timeout
	if mc.Timeout == 0 {
		mc.Timeout = 10 * time.Second
	}
	mc.ParseTime = false
	mc.Loc = time.UTC
	mc.InterpolateParams = true
	mc.AllowNativePasswords = true
	mc.MultiStatements = c.MultiStatements
	mc.Params = map[string]string{
		"charset":   "binary",
		"time_zone": "'+00:00'",
		"sql_mode":  "'" + c.WriterMode() + "'",
		// SHOW WARNINGS lists every warning of a statement (the largest value of both servers),
		// so a list of Notes can be told complete by comparing it with @@warning_count.
		"max_error_count": strconv.Itoa(MaxErrorCount),
		// What the tool relies on, never the server's globals (session.go).
		"autocommit":          "1",
		"wait_timeout":        strconv.Itoa(SessionTimeout),
		"interactive_timeout": strconv.Itoa(SessionTimeout),
	}
	if c.serverErrorCount {
		delete(mc.Params, "max_error_count")
	}
	return mc.FormatDSN()
}

// DriverConfig is the go-sql-driver configuration of DSN with c's TLS setting (a DSN can only
// name a registered TLS configuration; this one is per server name).
func (c Config) DriverConfig(schema string) (*mysql.Config, error) {
	mc, err := mysql.ParseDSN(c.DSN(schema))
	if err != nil {
		return nil, err
	}
	mc.TLS = c.TLSConfig()
	return mc, nil
}

// Open opens a pool on the server with writer session settings and checks it answers. When the
// account may not set max_error_count (MySQL 9.7 without SESSION_VARIABLES_ADMIN), its sessions
// keep the server's: a statement with more warnings than that is detected (the count exceeds the
// list) and split or refused by its caller, never passed.
func Open(ctx context.Context, c Config, schema string) (*sql.DB, error) {
	db, err := open(ctx, c, schema)
	var me *mysql.MySQLError
	if err != nil && !c.serverErrorCount && errors.As(err, &me) && me.Number == erSpecificAccessDenied &&
		strings.Contains(me.Message, "SESSION_VARIABLES_ADMIN") {
		c.serverErrorCount = true
		db, err = open(ctx, c, schema)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to %s as %s: %w", c.Addr(), c.User, explainConnectError(ctx, c, err))
	}
	return db, nil
}

// erSpecificAccessDenied is MySQL's "Access denied; you need (at least one of) the ... privilege(s)".
const erSpecificAccessDenied = 1227

func open(ctx context.Context, c Config, schema string) (*sql.DB, error) {
	mc, err := c.DriverConfig(schema)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", c.Addr(), err)
	}
	connector, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", c.Addr(), err)
	}
	db := sql.OpenDB(boundedConnector{Connector: connector, timeout: mc.Timeout, session: &sessionSetup{}})
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// boundedConnector bounds each new connection's connect and handshake by timeout (the driver's
// own timeout bounds the TCP connect only: a server that accepts and then says nothing would hold
// the connection forever).
type boundedConnector struct {
	driver.Connector
	timeout time.Duration
	session *sessionSetup // the flavor's session settings (session.go)
}

// Connect connects within the timeout. A handshake cut off by it is a plain error (Open names the
// server), so database/sql does not try again (as it does on driver.ErrBadConn).
func (b boundedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	conn, err := b.Connector.Connect(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		return nil, fmt.Errorf("%w (%s, --mysql-timeout): the port accepts connections but no server answers there", ErrConnectTimeout, b.timeout)
	}
	if err != nil || b.session == nil {
		return conn, err
	}
	if err := b.session.apply(cctx, conn); err != nil {
		_ = conn.Close() // the settings failed: the session is not used
		return nil, err
	}
	return conn, nil
}

// ErrConnectTimeout is a server that did not complete its connect and handshake in time.
var ErrConnectTimeout = errors.New("no MySQL handshake in time")

// explainDialError says why the TCP connect failed, without repeating the address (the caller
// names it), and what to check; other errors are returned as they are.
func explainDialError(err error) error {
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("host %s not found (%s): check --host", dns.Name, dns.Err)
	case !errors.As(err, &op) || op.Op != "dial":
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("connection refused: nothing listens on that port; check --host and --port")
	case op.Timeout():
		return errors.New("no answer to the TCP connect in time (--mysql-timeout): check --host, --port and the firewalls on the way")
	}
	return fmt.Errorf("cannot connect: %v", op.Err)
}
