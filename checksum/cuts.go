package checksum

import (
	"database/sql"
	"math/big"
)

// valueCuts cuts the key range [min, max] of a shared key made of one integer column into
// ranges of key values that hold about c.size rows each, from the estimated row count: the
// full pass then needs no read to find where its ranges end (a walk in steps of c.size rows
// reads every key of the original once more). The ranges end at lo+step-1, lo+2*step-1, ...,
// the last one is unbounded; ok is false (walk instead) for any other key or without an estimate.
//
// The estimate only sizes the ranges: the ranges cover every key, a range holding more or fewer
// rows than c.size is compared all the same, and a differing one is narrowed down in chunks of
// c.leaf rows counted in the snapshot. Keys are unique, so there are at most max-min+1 rows.
func (c *Checksum) valueCuts(min, max []sql.RawBytes) (lo, hi, step *big.Int, ok bool) {
	cols := c.ranges.Columns()
	if len(cols) != 1 || !isInteger(cols[0]) || c.cfg.Rows == nil || len(min) != 1 || len(max) != 1 {
		return nil, nil, nil, false
	}
	rows := c.cfg.Rows()
	lo, ok1 := new(big.Int).SetString(string(min[0]), 10)
	hi, ok2 := new(big.Int).SetString(string(max[0]), 10)
	if rows <= 0 || !ok1 || !ok2 || hi.Cmp(lo) < 0 {
		return nil, nil, nil, false
	}
	width := new(big.Int).Sub(hi, lo)
	width.Add(width, big.NewInt(1))
	estimate := big.NewInt(rows)
	if estimate.Cmp(width) > 0 {
		estimate.Set(width)
	}
	// step = ceil(width * size / rows): c.size rows per step where the keys are as dense as the
	// estimate says; at least c.size key values, since keys are unique.
	step = new(big.Int).Mul(width, big.NewInt(int64(c.size)))
	step.Add(step, new(big.Int).Sub(estimate, big.NewInt(1)))
	step.Div(step, estimate)
	return lo, hi, step, true
}

// emitCuts emits the ranges of valueCuts one by one (they are not all held at once): up to
// lo+step-1, then step by step while below hi, then the rest, unbounded.
func emitCuts(lo, hi, step *big.Int, emit func(span) error) error {
	var lower []sql.RawBytes
	end := new(big.Int).Add(lo, new(big.Int).Sub(step, big.NewInt(1)))
	for ; end.Cmp(hi) < 0; end.Add(end, step) {
		upper := []sql.RawBytes{sql.RawBytes(end.String())}
		if err := emit(span{lower: lower, upper: upper}); err != nil {
			return err
		}
		lower = upper
	}
	return emit(span{lower: lower})
}
