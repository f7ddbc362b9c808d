package binlogapply

import (
	"encoding/binary"
	"fmt"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// Which JSON values of a PARTIAL_UPDATE_ROWS_EVENT are lists of changes: each after image starts
// with its binlog_row_value_options and, when they hold PARTIAL_JSON, a bitmap with a bit per JSON
// column of the table (mysql-server sql/rpl_record.cc). go-mysql reads that bitmap but keeps it to
// itself, and an empty list of changes (a JSON_SET that changed nothing) comes out of it as an
// empty value, like an empty document: the bitmap is read here by walking the rows, each value's
// size known from its column's type and metadata.

// partialColumns lists the (row, column) of the partial JSON values of update event e, whose rows
// start at data[pos:]. Rows count as in e.Rows (before and after images alternate).
func partialColumns(e *replication.RowsEvent, pos int, data []byte, jsonCols []int) (map[[2]int]bool, error) {
	t := e.Table
	ncols := int(e.ColumnCount)
	if len(t.ColumnType) < ncols || len(t.ColumnMeta) < ncols {
		return nil, fmt.Errorf("table map of %d columns for rows of %d", len(t.ColumnType), ncols)
	}
	partial := map[[2]int]bool{}
	b := data[pos:]
	for row := 0; len(b) > 0; row += 2 {
		n, err := imageSize(t, ncols, e.ColumnBitmap1, b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		opts, _, k := mysql.LengthEncodedInt(b)
		if k == 0 || k > len(b) {
			return nil, errJSONDiff
		}
		b = b[k:]
		if opts&uint64(replication.EnumBinlogRowValueOptionsPartialJsonUpdates) != 0 {
			size := (len(jsonCols) + 7) / 8
			if size > len(b) {
				return nil, errJSONDiff
			}
			for j, c := range jsonCols {
				if b[j/8]&(1<<(j%8)) != 0 {
					partial[[2]int{row + 1, c}] = true
				}
			}
			b = b[size:]
		}
		if n, err = imageSize(t, ncols, e.ColumnBitmap2, b); err != nil {
			return nil, err
		}
		b = b[n:]
	}
	return partial, nil
}

// imageSize is the byte size of the row image at the start of b: its null bitmap (a bit per
// column present) and its non-null values.
func imageSize(t *replication.TableMapEvent, ncols int, present, b []byte) (int, error) {
	count := 0
	for i := range ncols {
		if bitSet(present, i) {
			count++
		}
	}
	nulls := (count + 7) / 8
	if nulls > len(b) {
		return 0, errJSONDiff
	}
	at, k := nulls, 0
	for i := range ncols {
		if !bitSet(present, i) {
			continue
		}
		null := bitSet(b[:nulls], k)
		k++
		if null {
			continue
		}
		n, err := valueSize(t.ColumnType[i], t.ColumnMeta[i], b[at:])
		if err != nil {
			return 0, fmt.Errorf("column #%d: %w", i+1, err)
		}
		if at += n; at > len(b) {
			return 0, errJSONDiff
		}
	}
	return at, nil
}

func bitSet(bitmap []byte, i int) bool { return i/8 < len(bitmap) && bitmap[i/8]&(1<<(i%8)) != 0 }

// valueSize is the byte size of a value of binlog type tp with metadata meta at the start of b.
func valueSize(tp byte, meta uint16, b []byte) (int, error) {
	length := int(meta)
	if tp == mysql.MYSQL_TYPE_STRING && meta >= 256 { // the real type in the high byte (go-mysql's reading)
		b0, b1 := byte(meta>>8), byte(meta)
		if b0&0x30 != 0x30 {
			length, tp = int(uint16(b1)|uint16((b0&0x30)^0x30)<<4), b0|0x30
		} else {
			length, tp = int(b1), b0
		}
	}
	fixed := map[byte]int{mysql.MYSQL_TYPE_NULL: 0, mysql.MYSQL_TYPE_TINY: 1, mysql.MYSQL_TYPE_SHORT: 2,
		mysql.MYSQL_TYPE_INT24: 3, mysql.MYSQL_TYPE_LONG: 4, mysql.MYSQL_TYPE_LONGLONG: 8, mysql.MYSQL_TYPE_FLOAT: 4,
		mysql.MYSQL_TYPE_DOUBLE: 8, mysql.MYSQL_TYPE_YEAR: 1, mysql.MYSQL_TYPE_DATE: 3, mysql.MYSQL_TYPE_NEWDATE: 3,
		mysql.MYSQL_TYPE_TIME: 3, mysql.MYSQL_TYPE_DATETIME: 8, mysql.MYSQL_TYPE_TIMESTAMP: 4}
	if n, ok := fixed[tp]; ok {
		return n, nil
	}
	frac := (int(meta) + 1) / 2
	switch tp {
	case mysql.MYSQL_TYPE_TIMESTAMP2:
		return 4 + frac, nil
	case mysql.MYSQL_TYPE_DATETIME2:
		return 5 + frac, nil
	case mysql.MYSQL_TYPE_TIME2:
		return 3 + frac, nil
	case mysql.MYSQL_TYPE_NEWDECIMAL:
		prec, scale := int(meta>>8), int(meta&0xff)
		intg := prec - scale
		return intg/9*4 + decimalDigitBytes[intg%9] + scale/9*4 + decimalDigitBytes[scale%9], nil
	case mysql.MYSQL_TYPE_BIT:
		return (int(meta>>8)*8 + int(meta&0xff) + 7) / 8, nil
	case mysql.MYSQL_TYPE_ENUM, mysql.MYSQL_TYPE_SET:
		return int(meta & 0xff), nil
	case mysql.MYSQL_TYPE_VARCHAR, mysql.MYSQL_TYPE_VAR_STRING, mysql.MYSQL_TYPE_STRING:
		if length < 256 {
			return prefixed(b, 1)
		}
		return prefixed(b, 2)
	case mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_GEOMETRY, mysql.MYSQL_TYPE_JSON, mysql.MYSQL_TYPE_VECTOR:
		return prefixed(b, int(meta))
	}
	return 0, fmt.Errorf("binlog type %d unknown", tp)
}

// prefixed is the size of a value that starts with its length in k little-endian bytes.
func prefixed(b []byte, k int) (int, error) {
	if k < 1 || k > 4 || len(b) < k {
		return 0, errJSONDiff
	}
	var x [4]byte
	copy(x[:], b[:k])
	return k + int(binary.LittleEndian.Uint32(x[:])), nil
}
