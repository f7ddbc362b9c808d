package throttle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrCriticalLoad is the migration's error when --critical-load is met: it aborts.
var ErrCriticalLoad = errors.New("critical-load met")

// CriticalLoad decides what --critical-load does when met, as gh-ost does: abort at once; with
// Recheck (--critical-load-interval-millis) read again after that delay and abort only if still
// met; with Hibernate (--critical-load-hibernate-seconds) never abort but throttle for that long,
// as often as it is met. As a Rule it throttles while hibernating, and while the last reading
// could not be judged.
type CriticalLoad struct {
	Thresholds func() Load                                         // read at each evaluation
	Read       func(ctx context.Context) (map[string]int64, error) // a fresh reading, for the re-check
	Recheck    time.Duration
	Hibernate  time.Duration
	Clock      Clock // nil: RealClock

	mu      sync.Mutex
	until   time.Time // hibernating until then
	problem string    // why the last reading could not be judged
}

func (c *CriticalLoad) clock() Clock {
	if c.Clock == nil {
		return RealClock
	}
	return c.Clock
}

// Hibernating reports whether a hibernation is under way (nothing is read meanwhile).
func (c *CriticalLoad) Hibernating() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clock().Now().Before(c.until)
}

// Check throttles while hibernating ("critical-load-hibernate until 15:04:05") or while the last
// reading could not be judged.
func (c *CriticalLoad) Check(context.Context) (bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock().Now().Before(c.until) {
		return true, "critical-load-hibernate until " + c.until.Format("15:04:05")
	}
	return c.problem != "", c.problem
}

// Evaluate judges one reading. It returns an error wrapping ErrCriticalLoad when the migration
// must abort; otherwise nil, having started a hibernation if one is due. With Recheck it waits
// that long and reads again before it decides. During a hibernation it does nothing.
func (c *CriticalLoad) Evaluate(ctx context.Context, v StatusValues) error {
	l := c.Thresholds()
	if len(l) == 0 || c.Hibernating() {
		c.setProblem("")
		return nil
	}
	b, met, problem := c.judge(l, v)
	c.setProblem(problem)
	if !met {
		return nil
	}
	switch {
	case c.Hibernate > 0:
		c.mu.Lock()
		c.until = c.clock().Now().Add(c.Hibernate)
		c.mu.Unlock()
		return nil
	case c.Recheck > 0:
		if err := sleep(ctx, c.clock(), c.Recheck); err != nil {
			return nil // the run is ending anyway
		}
		values, err := c.Read(ctx)
		b2, again, problem := c.judge(l, StatusValues{Values: values, Err: err})
		c.setProblem(problem)
		if !again {
			return nil
		}
		return fmt.Errorf("%w again after %s: %s (first %s)", ErrCriticalLoad, c.Recheck, b2, b)
	}
	return fmt.Errorf("%w: %s", ErrCriticalLoad, b)
}

// judge returns the breach a reading shows, or why it could not be judged.
func (c *CriticalLoad) judge(l Load, v StatusValues) (Breach, bool, string) {
	if v.Err != nil {
		return Breach{}, false, "critical-load: " + v.Err.Error()
	}
	b, met, err := l.Met(v.Values)
	if err != nil {
		return Breach{}, false, "critical-load " + err.Error()
	}
	return b, met, ""
}

func (c *CriticalLoad) setProblem(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problem = p
}
