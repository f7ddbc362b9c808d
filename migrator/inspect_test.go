package migrator

import (
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
)

func TestValidateRefusesLongAndUnsupported(t *testing.T) {
	base := config.Default()
	base.Database, base.Table, base.Alter = "gl", "t", "ADD c INT"
	cases := []struct {
		mutate func(*config.Config)
		phrase string
	}{
		{func(c *config.Config) { c.Table = strings.Repeat("x", 60) }, "too long for its ghost table name"},
		{func(c *config.Config) { c.Table = strings.Repeat("x", 45); c.TimestampOldTable = true }, "too long for a timestamped old table name"},
		{func(c *config.Config) { c.StorageEngine = "rocksdb" }, "--storage-engine"},
		{func(c *config.Config) { c.AssumeMasterHost = "db1:notaport" }, "--assume-master-host"},
	}
	for _, c := range cases {
		t.Run(c.phrase, func(t *testing.T) {
			cfg := base
			c.mutate(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.phrase) {
				t.Errorf("Validate: got %v, want %q", err, c.phrase)
			}
		})
	}
	if err := base.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
}
