package cutover

import (
	"slices"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// The registry runs exactly the algorithms the --cut-over setting accepts, in its order (the
// first, three-step, is the default), and refuses any other name in the setting's words.
func TestRegistryRunsEveryNameTheSettingAccepts(t *testing.T) {
	var names []string
	for _, a := range algorithms {
		names = append(names, a.name)
	}
	if want := config.CutOverAlgorithms(); !slices.Equal(names, want) {
		t.Errorf("the registry holds %v, the setting accepts %v", names, want)
	}
	if _, err := lookup("four-step"); err == nil || err.Error() != config.ValidateCutOver("four-step").Error() {
		t.Errorf("an unknown name: %v", err)
	}
}
