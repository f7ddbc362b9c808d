package checksum

import (
	"database/sql"
	"math/big"
)

// valueCuts cuts the key range [min, max] of a shared key made of one integer column into
// ranges of key values that hold about c.size rows each, from the estimated row count: the
// full pass then needs no read to find where its ranges end (a walk in steps of c.size rows
// reads every key of the original once more). The cuts are the ends of the ranges but the last,
// in order; ok is false (walk instead) for any other key or without an estimate.
//
// The estimate only sizes the ranges: any cut covers every key, a range holding more or fewer
// rows than c.size is compared all the same, and a differing one is narrowed down in chunks of
// c.leaf rows counted in the snapshot. Keys are unique, so there are at most max-min+1 rows.
func (c *Checksum) valueCuts(min, max []sql.RawBytes) (cuts []*big.Int, ok bool) {
	cols := c.ranges.Columns()
	if len(cols) != 1 || !isInteger(cols[0]) || c.cfg.Rows == nil || len(min) != 1 || len(max) != 1 {
		return nil, false
	}
	rows := c.cfg.Rows()
	lo, ok1 := new(big.Int).SetString(string(min[0]), 10)
	hi, ok2 := new(big.Int).SetString(string(max[0]), 10)
	if rows <= 0 || !ok1 || !ok2 || hi.Cmp(lo) < 0 {
		return nil, false
	}
	width := new(big.Int).Sub(hi, lo)
	width.Add(width, big.NewInt(1))
	estimate := big.NewInt(rows)
	if estimate.Cmp(width) > 0 {
		estimate.Set(width)
	}
	// step = ceil(width * size / rows): c.size rows per step where the keys are as dense as the
	// estimate says; at least c.size key values, since keys are unique.
	step := new(big.Int).Mul(width, big.NewInt(int64(c.size)))
	step.Add(step, new(big.Int).Sub(estimate, big.NewInt(1)))
	step.Div(step, estimate)
	for end := new(big.Int).Add(lo, new(big.Int).Sub(step, big.NewInt(1))); end.Cmp(hi) < 0; end = new(big.Int).Add(end, step) {
		cuts = append(cuts, end)
	}
	return cuts, true
}

// emitCuts emits the ranges that cuts make: up to the first cut, between cuts, above the last.
func emitCuts(cuts []*big.Int, emit func(span) error) error {
	var lower []sql.RawBytes
	for _, end := range cuts {
		upper := []sql.RawBytes{sql.RawBytes(end.String())}
		if err := emit(span{lower: lower, upper: upper}); err != nil {
			return err
		}
		lower = upper
	}
	return emit(span{lower: lower})
}
