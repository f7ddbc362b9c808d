package main

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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

// apply resolves the password (--password, then --ask-pass, then the environment, then --conf,
// already in cfg) and the TLS setting into cfg. stdin is where --ask-pass reads.
func (f *securityFlags) apply(fs *pflag.FlagSet, cfg *config.Config, stdin io.Reader, prompt io.Writer) error {
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
