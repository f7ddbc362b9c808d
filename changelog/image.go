package changelog

import "fmt"

// Row is a changelog row as a row image of the binary log shows it.
type Row struct {
	Hint, Value string
}

// ParseImage reads hint and value from a row image of the changelog table name, by position.
func ParseImage(name string, img []any) (Row, error) {
	if len(img) < valueColumn {
		return Row{}, fmt.Errorf("changelog %s has %d columns, expected at least %d", name, len(img), valueColumn)
	}
	return Row{Hint: text(img[hintColumn-1]), Value: text(img[valueColumn-1])}, nil
}

// text is a column value of an image as a string: a copy, since the binlog reader's string may
// alias its buffer.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return string([]byte(x))
	case []byte:
		return string(x)
	}
	return ""
}
