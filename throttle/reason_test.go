package throttle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every reason the rules give maps to its kind, never to free text: the reasons come from the
// rules themselves (a flag file's path, a URL, an error, a host in them).
func TestReasonKind(t *testing.T) {
	ctx := context.Background()
	reason := func(r Rule) string {
		t.Helper()
		on, why := r.Check(ctx)
		if !on {
			t.Fatalf("rule did not throttle")
		}
		return why
	}
	flag := filepath.Join(t.TempDir(), "throttle flag")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	lagOf := func(l Lag, replicas ...Lag) Rule {
		var in Sample[Lag]
		var rs Sample[[]Lag]
		in.Store(l)
		rs.Store(replicas)
		return MaxLag(func() time.Duration { return time.Second }, &in, &rs)
	}
	load := func(v StatusValues) Rule {
		var s Sample[StatusValues]
		s.Store(v)
		return MaxLoad(func() Load { l, _ := ParseLoad("Threads_running=25"); return l }, &s)
	}
	var user Switch
	user.Set(true, "commanded by user")
	failed := errors.New("dial tcp 10.0.0.9:80: connection refused")
	cases := map[string]string{
		reason(&user): "user",
		reason(FlagFile(func() string { return flag })):                             "flag_file",
		QueryVerdict(1, nil).Reason:                                                 "query",
		QueryVerdict(0, failed).Reason:                                              "query",
		HTTPVerdict("http://freno:1/check", 500, nil, false).Reason:                 "http",
		HTTPVerdict("http://freno:1/check", 0, failed, false).Reason:                "http",
		reason(lagOf(Lag{Lag: 3 * time.Second})):                                    "lag",
		reason(lagOf(Lag{Err: failed})):                                             "lag",
		reason(lagOf(Lag{}, Lag{Host: "10.0.0.2:3306", Lag: 5 * time.Second})):      "replica_lag",
		reason(lagOf(Lag{}, Lag{Host: "10.0.0.2:3306", Err: failed})):               "replica_lag",
		reason(load(StatusValues{Values: map[string]int64{"Threads_running": 30}})): "max_load",
		reason(load(StatusValues{Err: failed})):                                     "max_load",
		reason(Backlog(1, func() int { return 5 })):                                 "backlog",
		"critical-load-hibernate until 12:00:00":                                    "critical_load",
		"something new":                                                             "other",
	}
	for text, want := range cases {
		got := ReasonKind(text)
		if got != want || !slices.Contains(ReasonKinds, got) {
			t.Errorf("ReasonKind(%q) = %q, want %q", text, got, want)
		}
		if strings.Contains(got, "/") || strings.Contains(got, " ") {
			t.Errorf("kind %q is free text", got)
		}
	}
}
