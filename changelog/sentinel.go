package changelog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// AwaitSentinel writes a sentinel row with a token of its own and waits until the channel expect
// returned for that token is closed, or ctx ends. expect registers the token with the reader of
// the binary log (the binlog applier's ExpectSentinel) before the row is written, so the row can
// not be applied unseen; the channel closes once every event before the row is applied.
func (t Table) AwaitSentinel(ctx context.Context, db Execer, expect func(token string) <-chan struct{}) error {
	token, err := SentinelToken()
	if err != nil {
		return err
	}
	seen := expect(token)
	if err := t.WriteSentinel(ctx, db, token); err != nil {
		return err
	}
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sentinel %s not applied: %w", token, ctx.Err())
	}
}

// SentinelToken makes a new, unique sentinel token.
func SentinelToken() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a sentinel token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// WriteSentinel writes the sentinel row with token (AwaitSentinel makes the token and waits).
func (t Table) WriteSentinel(ctx context.Context, db Execer, token string) error {
	if err := t.write(ctx, db, HintSentinel, token); err != nil {
		return fmt.Errorf("write sentinel: %w", err)
	}
	return nil
}
