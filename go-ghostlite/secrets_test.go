package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

func TestSplitPasswordArgs(t *testing.T) {
	kept, env := splitPasswordArgs([]string{"--host=h", "--password=p1", "--master-password", "p2", "--user", "u",
		"--password-x=1", "--", "--password=after"})
	if want := []string{"--host=h", "--user", "u", "--password-x=1", "--", "--password=after"}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if want := []string{passwordEnv + "=p1", masterPasswordEnv + "=p2"}; !slices.Equal(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}
	if got := withEnv([]string{"PATH=/bin", passwordEnv + "=old", "X=1"}, env); !slices.Equal(got, []string{"PATH=/bin", "X=1", passwordEnv + "=p1", masterPasswordEnv + "=p2"}) {
		t.Errorf("withEnv: %q", got)
	}
	kept, env = splitPasswordArgs([]string{"-host", "h", "-password=p1", "-master-password", "p2", "-execute"})
	if !slices.Equal(kept, []string{"-host", "h", "-execute"}) || !slices.Equal(env, []string{passwordEnv + "=p1", masterPasswordEnv + "=p2"}) {
		t.Errorf("one-dash spelling: kept %q, env %q", kept, env)
	}
	if _, env := splitPasswordArgs([]string{"--host=h", "--user=u"}); env != nil {
		t.Errorf("nothing to hide, env %q", env)
	}
}

// The password's sources, in order: --password, --ask-pass (a pipe here), the environment, --conf.
func TestPasswordSources(t *testing.T) {
	conf := t.TempDir() + "/my.cnf"
	if err := os.WriteFile(conf, []byte("[client]\npassword=fromconf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(passwordEnv, "fromenv")
	t.Setenv(masterPasswordEnv, "masterenv")
	got := mustParse(t, "--conf="+conf, "--assume-master-host=p")
	if got.Conn.Password != "fromenv" || got.MasterPassword != "masterenv" {
		t.Errorf("environment: password %q, master %q", got.Conn.Password, got.MasterPassword)
	}
	if _, ok := os.LookupEnv(passwordEnv); ok {
		t.Errorf("%s still in the environment: hooks would inherit it", passwordEnv)
	}
	if got := mustParse(t, "--conf="+conf); got.Conn.Password != "fromconf" {
		t.Errorf("--conf: %q", got.Conn.Password)
	}
	if got := mustParse(t, "--conf="+conf, "--password=flag"); got.Conn.Password != "flag" {
		t.Errorf("--password: %q", got.Conn.Password)
	}
	pw, err := askPassword(strings.NewReader("typed\n"), io.Discard)
	if err != nil || pw != "typed" {
		t.Errorf("askPassword: %q %v", pw, err)
	}
	if _, err := askPassword(strings.NewReader(""), io.Discard); err == nil {
		t.Error("askPassword on an empty input: no error")
	}
	for _, args := range [][]string{{"--ask-pass", "--password=x"}, {"--master-user=m"}, {"--ssl-key=k"}, {"--ssl", "--ssl-cert=c"}} {
		inv, err := parse(t, append(slices.Clone(required), args...)...)
		if err == nil {
			_, err = migrator.New(inv.Config)
		}
		if err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
