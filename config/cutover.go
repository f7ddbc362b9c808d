package config

import (
	"fmt"
	"strings"
)

// The cut-over algorithms, by their --cut-over names: the setting's values are declared here, with
// the setting; package cutover runs each (its registry holds one entry per name, in this order).
const (
	CutOverThreeStep = "three-step"
	CutOverAtomic    = "atomic"
	CutOverTwoStep   = "two-step"
	// CutOverLockRename renames under the locking session's own lock (MySQL 8.0.13+).
	CutOverLockRename = "lock-rename"
)

// CutOverAlgorithms lists the --cut-over names, the default first.
func CutOverAlgorithms() []string {
	return []string{CutOverThreeStep, CutOverAtomic, CutOverTwoStep, CutOverLockRename}
}

// CutOverChoices lists the --cut-over names for a message: "three-step, atomic, two-step or
// lock-rename".
func CutOverChoices() string {
	names := CutOverAlgorithms()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ValidateCutOver returns nil when name is a cut-over algorithm, and otherwise an error naming
// them. ("" is not one: a configuration names its algorithm.)
func ValidateCutOver(name string) error {
	for _, a := range CutOverAlgorithms() {
		if a == name {
			return nil
		}
	}
	return fmt.Errorf("cut-over algorithm %q is not supported; use %s", name, CutOverChoices())
}
