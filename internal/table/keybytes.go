package table

// A key column whose collation changes between the original and the ghost ('ss' and 'ß' are equal
// under utf8mb4_0900_ai_ci, distinct under utf8mb3_general_ci) cannot address ghost rows by
// collation equality: a delete of one spelling would hit the other. Such rows are addressed by
// their exact bytes in the ghost column's character set. The comparison goes beside the
// collation's own ("k = v AND <bytes of k> = <bytes of v>"): equal bytes are equal under every
// collation, so the first term lets the key's index find the candidates and the second keeps the
// exact one. A CHAR value's trailing spaces are not part of it (the server strips them when it
// stores and reads one, unless PAD_CHAR_TO_FULL_LENGTH pads them back): they are trimmed, as
// characters, before the bytes are taken.

// KeyBytes is the exact bytes of character value v converted into ghost column g's character set.
func KeyBytes(v string, g *Column) string {
	return bytesOf("CONVERT("+v+" USING "+g.Charset+")", g)
}

// ColumnBytes is the exact bytes of col (qualified and quoted), a value of ghost column g.
func ColumnBytes(col string, g *Column) string {
	return bytesOf(col, g)
}

func bytesOf(v string, g *Column) string {
	if g.DataType == "char" {
		v = "TRIM(TRAILING ' ' FROM " + v + ")"
	}
	return "CAST(" + v + " AS BINARY)"
}
