package migrator

import (
	"context"
	"sync"
)

// background runs goroutines beside the phases under one context: the first error any of them
// returns cancels the context and is kept; stop cancels, waits for all and returns that error.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu  sync.Mutex
	err error
}

func newBackground(ctx context.Context) *background {
	b := &background{}
	b.ctx, b.cancel = context.WithCancel(ctx)
	return b
}

// Go runs fn in a goroutine.
func (b *background) Go(fn func(context.Context) error) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := fn(b.ctx); err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.mu.Unlock()
			b.cancel()
		}
	}()
}

// goUntil runs each of fns like Go, under one context of their own derived from ctx (the
// group's, or one derived from it), and returns stop, which cancels that context and waits for
// them (the group's end stops them too). It is safe to call stop more than once.
func (b *background) goUntil(ctx context.Context, fns ...func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Add(1)
		b.Go(func(context.Context) error {
			defer wg.Done()
			return fn(ctx)
		})
	}
	return func() { cancel(); wg.Wait() }
}

// Err is the first error a goroutine returned, or nil.
func (b *background) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// stop cancels the goroutines, waits for them and returns the first error one returned. It is
// safe to call more than once.
func (b *background) stop() error {
	b.cancel()
	b.wg.Wait()
	return b.Err()
}
