package copier

import "sync/atomic"

// Knobs are the copy's settings that may change while it runs (an operator's command, later):
// each is read when it is needed, so a change takes effect at the next chunk. Safe for concurrent
// use.
type Knobs struct {
	chunkSize atomic.Int64
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
	if n < 1 {
		n = 1
	}
	k.chunkSize.Store(int64(n))
}
