package preflight

import "testing"

// The registry names each check once in a scope, and lists every scope's checks together, in the order the
// scopes run: the order of the refusals a user meets is the registry's.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	last := Connected
	for _, c := range registry {
		if c.Name == "" || c.Run == nil {
			t.Errorf("check %q: no name or no function", c.Name)
		}
		if seen[c.Scope.String()+c.Name] {
			t.Errorf("check %q registered twice %s", c.Name, c.Scope)
		}
		seen[c.Scope.String()+c.Name] = true
		if c.Scope < last {
			t.Errorf("check %q (%s) comes after a check of a later scope", c.Name, c.Scope)
		}
		last = c.Scope
	}
	for _, s := range []Scope{Connected, BeforeCreate, Resume, Revert, AfterGhost, StreamStarted, BeforeCutOver} {
		if len(Checks(s)) == 0 {
			t.Errorf("no check %s", s)
		}
	}
}
