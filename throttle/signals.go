package throttle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// FlagFile throttles while the file at path exists ("flag-file /tmp/x"); the empty path never
// throttles. A stat is cheap: it is done at each check.
func FlagFile(path func() string) Rule {
	return RuleFunc(func(context.Context) (bool, string) {
		p := path()
		if p == "" {
			return false, ""
		}
		if _, err := os.Stat(p); err == nil {
			return true, "flag-file " + p
		}
		return false, ""
	})
}

// QueryVerdict judges one result of --throttle-query: above zero throttles; a query that failed
// throttles too, with its error.
func QueryVerdict(result int64, err error) Verdict {
	switch {
	case err != nil:
		return Verdict{true, "throttle-query failed: " + err.Error()}
	case result > 0:
		return Verdict{true, "throttle-query"}
	}
	return Verdict{}
}

// HTTPStatus sends the HEAD request of --throttle-http to rawURL and returns the response's status.
func HTTPStatus(ctx context.Context, client *http.Client, rawURL string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, rawURL, nil)
	if err != nil {
		return 0, fmt.Errorf("throttle-http request: %w", err)
	}
	req.Header.Set("User-Agent", "go-ghostlite (gh-ost compatible throttle check)")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close() // a HEAD response has no body to read
	return resp.StatusCode, nil
}

// NewHTTPClient is the client of --throttle-http: each check gives up after timeout
// (--throttle-http-timeout-millis).
func NewHTTPClient(timeout time.Duration) *http.Client { return &http.Client{Timeout: timeout} }

// HTTPVerdict judges one check of --throttle-http: any status but 200 throttles; a request that
// failed throttles too unless ignoreErrors (--ignore-http-errors).
func HTTPVerdict(rawURL string, status int, err error, ignoreErrors bool) Verdict {
	switch {
	case err != nil && ignoreErrors:
		return Verdict{}
	case err != nil:
		return Verdict{true, fmt.Sprintf("throttle-http %s: %v", rawURL, err)}
	case status != http.StatusOK:
		return Verdict{true, fmt.Sprintf("throttle-http %s returned %d", rawURL, status)}
	}
	return Verdict{}
}

// ParseHTTPURL checks a --throttle-http value: empty (no check), or an http or https URL with a
// host (gh-ost asks for the scheme).
func ParseHTTPURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("throttle-http %q: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("throttle-http needs a URL with its scheme (http:// or https://), got " + s)
	case u.Host == "":
		return errors.New("throttle-http needs a URL with a host, got " + s)
	}
	return nil
}
