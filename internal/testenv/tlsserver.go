package testenv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// TLSServer is a MariaDB server started for one test that accepts TLS connections only
// (require_secure_transport=ON), with a certificate signed by a CA the test generated. It keeps
// row-based binary logs, so a whole migration can run on it (--allow-on-master).
type TLSServer struct {
	Port                  int
	User, Password        string // an account with every privilege, reachable from 127.0.0.1
	CAFile, OtherCAFile   string // the CA that signed the server's certificate, and an unrelated one
	ClientCert, ClientKey string // a client certificate signed by CAFile
}

// StartTLSServer generates the certificates, initialises a data directory and starts mariadbd on
// a free port; it is stopped when the test ends. Without mariadbd the test is skipped (or fails
// under CI=true).
func StartTLSServer(t testing.TB) *TLSServer {
	t.Helper()
	mariadbd, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		mariadbd = "/usr/sbin/mariadbd"
	}
	installDB, err2 := exec.LookPath("mariadb-install-db")
	if _, err := os.Stat(mariadbd); err != nil || err2 != nil {
		Unavailable(t, "mariadbd or mariadb-install-db not found (script/bootstrap installs them)")
	}
	dir, err := os.MkdirTemp("", "gl-tls-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &TLSServer{Port: freePort(t), User: "ghostlite", Password: "ghostlite"}
	serverCert, serverKey := s.writeCertificates(t, dir)

	install := exec.Command(installDB, "--no-defaults", "--datadir="+dir+"/data", "--user="+currentUser(),
		"--auth-root-authentication-method=socket", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	// Its own tmpdir: a starting server deletes every #sql* file in its tmpdir, which would break
	// the running statements of any other server sharing it.
	tmpdir := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmpdir, 0o755); err != nil {
		t.Fatalf("tmpdir: %v", err)
	}
	initSQL := filepath.Join(dir, "init.sql")
	writeFile(t, initSQL, fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s';\n"+
		"GRANT ALL PRIVILEGES ON *.* TO '%[1]s'@'%%';\nCREATE DATABASE IF NOT EXISTS test;\n", s.User, s.Password))
	cmd := exec.Command(mariadbd, "--no-defaults", "--user="+currentUser(), "--datadir="+dir+"/data",
		"--port="+strconv.Itoa(s.Port), "--bind-address=127.0.0.1", "--socket="+dir+"/mysqld.sock",
		"--pid-file="+dir+"/mysqld.pid", "--log-error="+dir+"/error.log", "--init-file="+initSQL,
		"--tmpdir="+tmpdir,
		"--server-id=1", "--log-bin="+dir+"/data/binlog", "--binlog-format=ROW", "--binlog-row-image=FULL",
		"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--performance-schema=ON",
		"--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON", "--skip-name-resolve",
		"--ssl-ca="+s.CAFile, "--ssl-cert="+serverCert, "--ssl-key="+serverKey, "--require-secure-transport=ON")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mariadbd: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	var lastErr error
	err = Poll(context.Background(), 30*time.Second, 100*time.Millisecond, "mariadbd with TLS", func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		db, err := dbconn.Open(ctx, s.Config(t), "test")
		lastErr = err
		if err == nil {
			_ = db.Close()
		}
		return err == nil, nil
	})
	if err != nil {
		log, _ := os.ReadFile(dir + "/error.log")
		t.Fatalf("mariadbd with TLS did not answer on port %d within 30s (%v):\n%s", s.Port, lastErr, log)
	}
	return s
}

// Config is the connection to the server over TLS, verified against CAFile.
func (s *TLSServer) Config(t testing.TB) dbconn.Config {
	t.Helper()
	tc, err := dbconn.LoadTLS(s.CAFile, "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	return dbconn.Config{Host: "127.0.0.1", Port: s.Port, User: s.User, Password: s.Password, Timeout: 3 * time.Second, TLS: tc}
}

// writeCertificates writes the CA, an unrelated CA, the server's certificate (for 127.0.0.1 and
// localhost) and a client certificate, and returns the server's certificate and key files.
func (s *TLSServer) writeCertificates(t testing.TB, dir string) (cert, key string) {
	ca, caKey := newCertificate(t, nil, nil, "ghostlite test CA")
	other, _ := newCertificate(t, nil, nil, "some other CA")
	srv, srvKey := newCertificate(t, ca, caKey, "127.0.0.1")
	cli, cliKey := newCertificate(t, ca, caKey, "ghostlite client")
	s.CAFile, s.OtherCAFile = writePEM(t, dir, "ca.pem", ca, nil), writePEM(t, dir, "other-ca.pem", other, nil)
	s.ClientCert, s.ClientKey = writePEM(t, dir, "client.pem", cli, nil), writePEM(t, dir, "client-key.pem", nil, cliKey)
	return writePEM(t, dir, "server.pem", srv, nil), writePEM(t, dir, "server-key.pem", nil, srvKey)
}

// newCertificate makes a certificate for name signed by parent (self-signed CA when nil).
func newCertificate(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	} else {
		tmpl.IPAddresses, tmpl.DNSNames = []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// writePEM writes a certificate or a key (PKCS#8) to dir/name and returns the path.
func writePEM(t testing.TB, dir, name string, cert *x509.Certificate, key *ecdsa.PrivateKey) string {
	t.Helper()
	var block *pem.Block
	if cert != nil {
		block = &pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}
	} else {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	}
	path := filepath.Join(dir, name)
	writeFile(t, path, string(pem.EncodeToMemory(block)))
	return path
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freePort is a TCP port on 127.0.0.1 nobody listens on at the moment.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() //nolint:errcheck // a probe
	return l.Addr().(*net.TCPAddr).Port
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		return "root"
	}
	return string(out[:len(out)-1])
}

// WriteTestCertificates writes a self-signed CA and a client certificate it signed, with its key,
// to dir (PEM) and returns the three paths: for tests of TLS settings that need no server.
func WriteTestCertificates(t testing.TB, dir string) (ca, cert, key string) {
	t.Helper()
	caCert, caKey := newCertificate(t, nil, nil, "ghostlite test CA")
	cli, cliKey := newCertificate(t, caCert, caKey, "ghostlite client")
	return writePEM(t, dir, "ca.pem", caCert, nil), writePEM(t, dir, "client.pem", cli, nil), writePEM(t, dir, "client-key.pem", nil, cliKey)
}
