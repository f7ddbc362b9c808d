package table

import (
	"unicode/utf8"
)

// TooLong reports whether name exceeds MaxIdentifierLength, which the server counts in
// characters, not bytes (a 59-character Cyrillic name is 118 bytes and fits).
func TooLong(name string) bool { return utf8.RuneCountInString(name) > MaxIdentifierLength }
