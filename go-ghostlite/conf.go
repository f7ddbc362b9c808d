package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// confCredentials are what --conf contributes: the [client] section's user and password.
type confCredentials struct {
	user, password       string
	hasUser, hasPassword bool
}

// readConfFile reads the user and password of the [client] section of a my.cnf-style file.
func readConfFile(path string) (confCredentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return confCredentials{}, fmt.Errorf("read --conf file: %w", err)
	}
	defer f.Close() //nolint:errcheck // read only: a failed close loses nothing
	creds, err := parseConf(f)
	if err != nil {
		return confCredentials{}, fmt.Errorf("read --conf file %s: %w", path, err)
	}
	return creds, nil
}

// parseConf reads a MySQL option file: "[group]" headers, "key = value" lines, whole-line
// comments starting with # or ;, and # comments after an unquoted value. Values may be quoted
// with ' or " (needed when they contain #) and may use the escapes \b \t \n \r \\ \s.
// Keys compare case-insensitively with - and _ alike, as MySQL does. Only [client] user and
// password are kept (the last one given wins); every other group and key is ignored.
// !include directives are refused: credentials read from elsewhere would be a surprise.
func parseConf(r io.Reader) (confCredentials, error) {
	var creds confCredentials
	group := ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '!':
			return creds, fmt.Errorf("line %d: %q is not supported; put user and password in this file", n, line)
		case line[0] == '[':
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return creds, fmt.Errorf("line %d: group header %q has no closing ]", n, line)
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" && rest[0] != '#' {
				return creds, fmt.Errorf("line %d: unexpected text after group header: %q", n, rest)
			}
			group = strings.ToLower(strings.TrimSpace(line[1:end]))
			continue
		}
		key, raw, hasValue := strings.Cut(line, "=")
		key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "_", "-")
		if group != "client" || (key != "user" && key != "password") {
			continue
		}
		if !hasValue {
			// MySQL's bare "password" means "ask for it": we cannot ask.
			return creds, fmt.Errorf("line %d: [client] %s has no value", n, key)
		}
		value, err := parseConfValue(raw)
		if err != nil {
			return creds, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
		if key == "user" {
			creds.user, creds.hasUser = value, true
		} else {
			creds.password, creds.hasPassword = value, true
		}
	}
	if err := sc.Err(); err != nil {
		return creds, err
	}
	return creds, nil
}

// parseConfValue decodes what follows the = of an option line.
func parseConfValue(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || (raw[0] != '"' && raw[0] != '\'') {
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw = raw[:i]
		}
		return unescapeConf(strings.TrimSpace(raw), 0), nil
	}
	quote := raw[0]
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++ // the escaped character cannot close the value
		case quote:
			if rest := strings.TrimSpace(raw[i+1:]); rest != "" && rest[0] != '#' {
				return "", fmt.Errorf("unexpected text after the quoted value: %q", rest)
			}
			return unescapeConf(raw[1:i], quote), nil
		}
	}
	return "", fmt.Errorf("unterminated %c quote", quote)
}

// unescapeConf resolves MySQL's option file escapes. Inside a quoted value, \ before the quote
// character gives the quote. An unknown escape is kept as written (Windows paths stay intact).
func unescapeConf(s string, quote byte) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 's':
			b.WriteByte(' ')
		case '\\':
			b.WriteByte('\\')
		default:
			if quote != 0 && c == quote {
				b.WriteByte(c)
			} else {
				b.WriteByte('\\')
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}
