// Package chaos holds end-to-end fault tests of go-ghostlite against the sandbox: connections and
// the tool itself are killed or cut off at each cut-over step while writers record every
// acknowledged write.
//
// Invariants checked by every test: after the fault the original table is under its name (at
// once, or after --recover-cut-over), every acknowledged write is in the final table, and a new
// migration completes. Each test works in databases of its own and kills only the processes and
// connections it opened.
package chaos
