package migrator

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Key changes that keep every key distinct are accepted by preparation, a primary key whose rows
// would be addressed by their bytes (its collation changes) gives way to an unchanged unique key,
// and serves when no other does.
func TestSharedKeyWideningAccepted(t *testing.T) {
	t.Parallel() // a database of its own
	cases := []struct {
		create, alter, key string
	}{
		{"CREATE TABLE w (id INT NOT NULL PRIMARY KEY, x INT)", "MODIFY id BIGINT NOT NULL", "PRIMARY"},
		{"CREATE TABLE w (k VARCHAR(10) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, x INT)", "MODIFY k VARCHAR(20) COLLATE utf8mb4_bin NOT NULL", "PRIMARY"},
		{"CREATE TABLE w (k DATETIME NOT NULL PRIMARY KEY, x INT)", "MODIFY k DATETIME(6) NOT NULL", "PRIMARY"},
		{"CREATE TABLE w (k VARCHAR(10) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, id INT NOT NULL, UNIQUE KEY uk_id (id))",
			"MODIFY k VARCHAR(10) COLLATE utf8mb4_general_ci NOT NULL", "uk_id"},
		{"CREATE TABLE w (k VARCHAR(10) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, id INT NULL, UNIQUE KEY uk_id (id))",
			"MODIFY k VARCHAR(10) COLLATE utf8mb4_general_ci NOT NULL", "PRIMARY"},
	}
	for _, c := range cases {
		t.Run(c.alter, func(t *testing.T) {
			db, schema := testenv.OwnDatabase(t, prepareDB)
			testenv.Exec(t, db, c.create)
			s := prepareOK(t, mustNew(t, testConfig(t, schema, "w", c.alter, nil)))
			if s.plan.OriginalKey.Name != c.key {
				t.Errorf("shared key %s, want %s", s.plan.OriginalKey.Name, c.key)
			}
		})
	}
}
