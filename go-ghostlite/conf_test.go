package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConf(t *testing.T) {
	cases := []struct {
		name, text string
		want       confCredentials
	}{
		{
			name: "plain",
			text: "[client]\nuser=alice\npassword=secret\n",
			want: confCredentials{user: "alice", password: "secret", hasUser: true, hasPassword: true},
		},
		{
			name: "comments, spaces and other sections ignored",
			text: `# a comment
; another comment
[mysqld]
user = mysql
password = not-this-one

  [ client ]   # trailing comment
	user   =   bob   # who runs the migration
password = hunter2
host = db1
skip-ssl
[mysql]
password = not-this-one-either
`,
			want: confCredentials{user: "bob", password: "hunter2", hasUser: true, hasPassword: true},
		},
		{
			name: "quoted values keep # and spaces",
			text: "[client]\nuser = \"carol smith\"\npassword = 'p#ss word' # comment\n",
			want: confCredentials{user: "carol smith", password: "p#ss word", hasUser: true, hasPassword: true},
		},
		{
			name: "escapes",
			text: "[client]\npassword = \"a\\\"b\\\\c\\sd\"\nuser = dom\\ain\n",
			want: confCredentials{user: `dom\ain`, password: `a"b\c d`, hasUser: true, hasPassword: true},
		},
		{
			name: "unquoted # starts a comment",
			text: "[client]\npassword = abc#def\n",
			want: confCredentials{password: "abc", hasPassword: true},
		},
		{
			name: "last value wins, case and underscores do not matter",
			text: "[client]\nuser=first\n[CLIENT]\nUSER=second\n",
			want: confCredentials{user: "second", hasUser: true},
		},
		{
			name: "empty password is a password",
			text: "[client]\npassword=\n",
			want: confCredentials{password: "", hasPassword: true},
		},
		{
			name: "no client section",
			text: "[mysqld]\nuser=mysql\n",
			want: confCredentials{},
		},
		{
			name: "CRLF line ends",
			text: "[client]\r\nuser=eve\r\npassword='x y'\r\n",
			want: confCredentials{user: "eve", password: "x y", hasUser: true, hasPassword: true},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseConf(strings.NewReader(c.text))
			if err != nil {
				t.Fatalf("parseConf: %v", err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseConfErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unterminated quote", "[client]\npassword = \"abc\n", `line 2: password: unterminated " quote`},
		{"text after quote", "[client]\nuser = 'a' b\n", "line 2: user: unexpected text after the quoted value"},
		{"include", "!include /etc/other.cnf\n[client]\nuser=a\n", `line 1: "!include /etc/other.cnf" is not supported`},
		{"bad header", "[client\nuser=a\n", "line 1: group header"},
		{"bare password", "[client]\npassword\n", "line 2: [client] password has no value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseConf(strings.NewReader(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestReadConfFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "my.cnf")
	if err := os.WriteFile(path, []byte("[client]\nuser=frank\npassword=\"pw\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readConfFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.user != "frank" || got.password != "pw" {
		t.Fatalf("got %+v", got)
	}

	missing := filepath.Join(dir, "nope.cnf")
	_, err = readConfFile(missing)
	if err == nil || !strings.Contains(err.Error(), "read --conf file") || !strings.Contains(err.Error(), missing) ||
		!os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("missing file: got %v, want a not-exist error naming --conf and %s", err, missing)
	}

	bad := filepath.Join(dir, "bad.cnf")
	if err := os.WriteFile(bad, []byte("[client]\nuser='x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readConfFile(bad); err == nil || !strings.Contains(err.Error(), bad+": line 2") {
		t.Fatalf("bad file: got %v, want an error naming the file and line", err)
	}
}

// unwrapAll returns the innermost error of a chain.
func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}
