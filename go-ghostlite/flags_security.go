package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// Environment variables that carry passwords (doc/flags.md, Security). One tool-specific name
// rather than the mysql client's MYSQL_PWD: a MYSQL_PWD exported for some other client never
// logs the migration in by surprise, and the name says which program reads it. The process
// removes both from its environment once read, so hooks never inherit them.
const (
	passwordEnv       = "GHOSTLITE_PASSWORD"
	masterPasswordEnv = "GHOSTLITE_MASTER_PASSWORD"
)

// securityFlags are gh-ost's TLS and secret flags that do not map one to one onto Config.
type securityFlags struct {
	ssl, sslAllowInsecure  bool
	sslCA, sslCert, sslKey string
	askPass                bool
}

// addSecurityFlags registers --ssl*, --ask-pass, --master-user and --master-password.
func addSecurityFlags(fs *pflag.FlagSet, cfg *migrator.Config, f *securityFlags) {
	fs.BoolVar(&f.ssl, "ssl", false, "connect to every server over TLS, verified against the system CA pool or --ssl-ca")
	fs.StringVar(&f.sslCA, "ssl-ca", "", "PEM file of the CA(s) that signed the servers' certificates (needs --ssl)")
	fs.StringVar(&f.sslCert, "ssl-cert", "", "PEM file of the client certificate, with --ssl-key (needs --ssl)")
	fs.StringVar(&f.sslKey, "ssl-key", "", "PEM file of the client certificate's private key (needs --ssl)")
	fs.BoolVar(&f.sslAllowInsecure, "ssl-allow-insecure", false, "with --ssl, do not verify the server's certificate chain and host name (encrypted, not authenticated)")
	fs.BoolVar(&f.askPass, "ask-pass", false, "read the password from the terminal (not echoed) instead of --password, --conf or "+passwordEnv)
	fs.StringVar(&cfg.MasterUser, "master-user", "", "user on the primary, when it differs from --user (needs --assume-master-host)")
	fs.StringVar(&cfg.MasterPassword, "master-password", "", "password on the primary, when it differs (needs --assume-master-host; or "+masterPasswordEnv+")")
}

// apply resolves the password (--password, then --ask-pass, then the environment, then --conf,
// already in cfg) and the TLS setting into cfg. stdin is where --ask-pass reads.
func (f *securityFlags) apply(fs *pflag.FlagSet, cfg *migrator.Config, stdin io.Reader, prompt io.Writer) error {
	env, hasEnv := os.LookupEnv(passwordEnv)
	masterEnv, hasMasterEnv := os.LookupEnv(masterPasswordEnv)
	_ = os.Unsetenv(passwordEnv) // hooks inherit the environment: they must not see it
	_ = os.Unsetenv(masterPasswordEnv)
	switch {
	case f.askPass && fs.Changed("password"):
		return errors.New("--ask-pass and --password both give the password: keep one")
	case f.askPass:
		pw, err := askPassword(stdin, prompt)
		if err != nil {
			return err
		}
		cfg.Conn.Password = pw
	case !fs.Changed("password") && hasEnv:
		cfg.Conn.Password = env
	}
	if !fs.Changed("master-password") && hasMasterEnv {
		cfg.MasterPassword = masterEnv
	}
	if !f.ssl {
		if f.sslCA != "" || f.sslCert != "" || f.sslKey != "" || f.sslAllowInsecure {
			return errors.New("--ssl-ca, --ssl-cert, --ssl-key and --ssl-allow-insecure need --ssl: add --ssl")
		}
		return nil
	}
	t, err := dbconn.LoadTLS(f.sslCA, f.sslCert, f.sslKey, f.sslAllowInsecure)
	if err != nil {
		return err
	}
	cfg.Conn.TLS = t
	return nil
}
