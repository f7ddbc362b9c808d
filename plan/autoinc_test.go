package plan

import (
	"testing"
)

// An ALTER that sets the counter itself (the AUTO_INCREMENT table option) is left to decide it.
func TestSetsAutoIncrement(t *testing.T) {
	cases := map[string]bool{
		"AUTO_INCREMENT = 1000":                         true,
		"ADD COLUMN c INT, AUTO_INCREMENT 5":            true,
		"MODIFY id BIGINT NOT NULL AUTO_INCREMENT":      false,
		"ADD COLUMN c INT COMMENT 'AUTO_INCREMENT = 5'": false,
		"MODIFY id INT AUTO_INCREMENT, ADD KEY k (c)":   false,
	}
	for body, want := range cases {
		t.Run(body, func(t *testing.T) {
			if got := SetsAutoIncrement(&AlterSpec{Body: body}); got != want {
				t.Errorf("SetsAutoIncrement(%q) = %v, want %v", body, got, want)
			}
		})
	}
}
