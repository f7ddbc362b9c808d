package dbconn

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ParseHostPort reads host[:port] (an IPv6 address bare or in brackets); the port defaults to
// defPort.
func ParseHostPort(s string, defPort int) (string, int, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
			return s, defPort, nil // a bare IPv6 address
		}
		if strings.Contains(s, ":") || s == "" {
			return "", 0, fmt.Errorf("%q is not host[:port]", s)
		}
		return s, defPort, nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return "", 0, fmt.Errorf("%q is not host[:port]: bad port", s)
	}
	return host, p, nil
}
