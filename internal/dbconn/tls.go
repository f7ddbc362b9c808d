package dbconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// TLS is what --ssl, --ssl-ca, --ssl-cert, --ssl-key and --ssl-allow-insecure ask for, read once
// at start-up. A Config whose TLS is nil talks plaintext; otherwise every connection the tool
// opens to that server (pools, the binlog stream) is encrypted and verified the same way:
// TLSConfig is the only place a *tls.Config is made.
type TLS struct {
	roots         *x509.CertPool // nil: the system pool
	certs         []tls.Certificate
	allowInsecure bool
}

// LoadTLS reads the CA bundle and the client certificate and key (all PEM; any may be ""). An
// unreadable or malformed file is an error naming the flag.
func LoadTLS(caFile, certFile, keyFile string, allowInsecure bool) (*TLS, error) {
	t := &TLS{allowInsecure: allowInsecure}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--ssl-ca: %w", err)
		}
		t.roots = x509.NewCertPool()
		if !t.roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ssl-ca=%s holds no PEM certificate: give the CA bundle in PEM format", caFile)
		}
	}
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("--ssl-cert and --ssl-key go together: give both or neither")
	}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--ssl-cert/--ssl-key: %v: give a PEM certificate and its private key", err)
		}
		t.certs = []tls.Certificate{pair}
	}
	return t, nil
}

// TLSConfig is the TLS setting of connections to c: nil for plaintext; otherwise verified against
// --ssl-ca (or the system pool) for the name c.Host, unless --ssl-allow-insecure.
func (c Config) TLSConfig() *tls.Config {
	if c.TLS == nil {
		return nil
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.Host,
		RootCAs:            c.TLS.roots,
		Certificates:       c.TLS.certs,
		InsecureSkipVerify: c.TLS.allowInsecure, //nolint:gosec // only with --ssl-allow-insecure
	}
}

// erInsecureTransport are the errors a server with require_secure_transport=ON returns to a
// plaintext client: MySQL's ER_SECURE_TRANSPORT_REQUIRED and MariaDB's number for it.
var erInsecureTransport = map[uint16]bool{3159: true, 4188: true}

// plaintextRefused tells whether a plaintext login refused with "access denied" (error 1045) is a
// server that requires TLS: MariaDB answers so under require_secure_transport, without its own
// error number. It logs in once more over TLS, unverified: the same credentials just went to the
// same address in the clear, so nothing is disclosed that was not already.
func plaintextRefused(ctx context.Context, c Config, err error) bool {
	var me *mysql.MySQLError
	if c.TLS != nil || !errors.As(err, &me) || me.Number != 1045 {
		return false
	}
	probe := c
	probe.TLS = &TLS{allowInsecure: true}
	mc, perr := probe.DriverConfig("")
	if perr != nil {
		return false
	}
	connector, perr := mysql.NewConnector(mc)
	if perr != nil {
		return false
	}
	db := sql.OpenDB(connector)
	defer db.Close() //nolint:errcheck // a probe
	return db.PingContext(ctx) == nil
}

// explainConnectError turns the failures of a TLS setup into a sentence naming the fix; any other
// error is returned as is.
func explainConnectError(ctx context.Context, c Config, err error) error {
	if plaintextRefused(ctx, c, err) {
		return fmt.Errorf("%s refuses connections without TLS (require_secure_transport): pass --ssl, with --ssl-ca naming the CA of its certificate", c.Addr())
	}
	var me *mysql.MySQLError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &me) && (erInsecureTransport[me.Number] || strings.Contains(me.Message, "insecure transport")):
		return fmt.Errorf("%s refuses connections without TLS (error %d): pass --ssl, with --ssl-ca naming the CA of its certificate", c.Addr(), me.Number)
	case errors.Is(err, mysql.ErrNoTLS):
		return fmt.Errorf("%s does not offer TLS but --ssl asks for it: enable TLS on the server or drop --ssl", c.Addr())
	case errors.As(err, &hostErr):
		return fmt.Errorf("TLS to %s: the server's certificate is not valid for %q (%v): connect with a --host its certificate names, or pass --ssl-allow-insecure", c.Addr(), c.Host, hostErr)
	case errors.As(err, &unknownCA), errors.As(err, &verify):
		return fmt.Errorf("TLS to %s: the server's certificate is not signed by a trusted CA (%s): give its CA with --ssl-ca, or pass --ssl-allow-insecure", c.Addr(), firstLine(err))
	}
	return explainDialError(err)
}

// firstLine is the last, innermost part of err's message (after the last ": "), on one line.
func firstLine(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", " ")
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}
