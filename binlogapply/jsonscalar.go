package binlogapply

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The scalars of MySQL's binary JSON that need more than a number or a string: DECIMALs in the
// server's binary decimal format, temporal values packed in an int64, and JSON string quoting.

// decimalDigitBytes is how many bytes hold 0..9 leftover decimal digits (MySQL's dig2bytes).
var decimalDigitBytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

// decodeBinaryDecimal is the exact text of a DECIMAL(prec,scale) in MySQL's binary format: groups
// of 9 digits in 4 big-endian bytes, leftover digits in fewer, the sign in the first bit and a
// negative value stored inverted.
func decodeBinaryDecimal(b []byte, prec, scale int) (string, error) {
	if prec < 1 || prec > 81 || scale < 0 || scale > prec {
		return "", fmt.Errorf("binary JSON DECIMAL(%d,%d) is malformed", prec, scale)
	}
	intg := prec - scale
	intg0, intg0x, frac0, frac0x := intg/9, intg%9, scale/9, scale%9
	size := intg0*4 + decimalDigitBytes[intg0x] + frac0*4 + decimalDigitBytes[frac0x]
	if len(b) < size {
		return "", errJSONShort
	}
	buf := append([]byte(nil), b[:size]...)
	negative := buf[0]&0x80 == 0
	buf[0] ^= 0x80
	if negative {
		for i := range buf {
			buf[i] ^= 0xff
		}
	}
	pos := 0
	read := func(n int) uint64 {
		var v uint64
		for _, x := range buf[pos : pos+n] {
			v = v<<8 | uint64(x)
		}
		pos += n
		return v
	}
	var ip strings.Builder
	group := func(v uint64) {
		switch {
		case ip.Len() > 0:
			fmt.Fprintf(&ip, "%09d", v)
		case v > 0:
			ip.WriteString(strconv.FormatUint(v, 10))
		}
	}
	if intg0x > 0 {
		group(read(decimalDigitBytes[intg0x]))
	}
	for range intg0 {
		group(read(4))
	}
	var fp strings.Builder
	for range frac0 {
		fmt.Fprintf(&fp, "%09d", read(4))
	}
	if frac0x > 0 {
		fmt.Fprintf(&fp, "%0*d", frac0x, read(decimalDigitBytes[frac0x]))
	}
	s := ip.String()
	if s == "" {
		s = "0"
	}
	if scale > 0 {
		s += "." + fp.String()
	}
	if negative && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s, nil
}

// packedTemporal is the text of a temporal value packed as MySQL's TIME_to_longlong_packed does, as
// MySQL prints it in JSON (six fractional digits but for a DATE), and the SQL type that casts that
// text back. A TIMESTAMP comes back as a DATETIME: SQL has no cast to TIMESTAMP.
func packedTemporal(ft byte, v int64) (string, string) {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	ip, frac := v>>24, v%(1<<24)
	if ft == fieldTime {
		h, m, s := (ip>>12)%(1<<10), (ip>>6)%(1<<6), ip%(1<<6)
		return fmt.Sprintf("%s%02d:%02d:%02d.%06d", sign, h, m, s, frac), "TIME(6)"
	}
	ymd, hms := ip>>17, ip%(1<<17)
	ym := ymd >> 5
	date := fmt.Sprintf("%04d-%02d-%02d", ym/13, ym%13, ymd%(1<<5))
	if ft == fieldDate {
		return date, "DATE"
	}
	return fmt.Sprintf("%s %02d:%02d:%02d.%06d", date, hms>>12, (hms>>6)%(1<<6), hms%(1<<6), frac), "DATETIME(6)"
}

// quoteJSON is s as a JSON string: quotes, backslashes and control characters escaped, every
// other byte as it is (MySQL's JSON strings are utf8mb4).
func quoteJSON(s []byte) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// fixedUint reads a little-endian unsigned integer of len(b) bytes.
func fixedUint(b []byte) uint64 {
	var x [8]byte
	copy(x[:], b)
	return binary.LittleEndian.Uint64(x[:])
}

var errJSONDiff = errors.New("partial JSON update is malformed")
