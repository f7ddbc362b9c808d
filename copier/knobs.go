package copier

import (
	"sync"
	"sync/atomic"
)

// Knobs are the copy's settings that may change while it runs (an operator's command, later):
// each is read when it is needed, so a change takes effect at the next chunk. Safe for concurrent
// use.
type Knobs struct {
	chunkSize atomic.Int64
	mu        sync.Mutex // serialises writes, so an operator's fixed size is never overwritten
	fixed     bool       // an operator set the chunk size: --chunk-time no longer changes it
}

// NewKnobs returns knobs with the given chunk size.
func NewKnobs(chunkSize int) *Knobs {
	k := &Knobs{}
	k.SetChunkSize(chunkSize)
	return k
}

// ChunkSize is the number of rows per chunk (--chunk-size), read for each chunk planned.
func (k *Knobs) ChunkSize() int { return int(k.chunkSize.Load()) }

// SetChunkSize changes the number of rows per chunk from the next chunk planned on; the chunks
// already read ahead keep their size. Values below 1 are taken as 1 (the caller validates the
// range it allows).
func (k *Knobs) SetChunkSize(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.chunkSize.Store(int64(max(n, 1)))
}

// FixChunkSize sets the chunk size as SetChunkSize does and keeps it: from then on the copy no
// longer sizes chunks after their times (Config.Adaptive). An operator's chunk-size command.
func (k *Knobs) FixChunkSize(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fixed = true
	k.chunkSize.Store(int64(max(n, 1)))
}

// Fixed reports whether an operator fixed the chunk size (FixChunkSize).
func (k *Knobs) Fixed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.fixed
}

// adaptChunkSize is --chunk-time's change of the chunk size: ignored once the size is fixed.
func (k *Knobs) adaptChunkSize(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.fixed {
		k.chunkSize.Store(int64(max(n, 1)))
	}
}
