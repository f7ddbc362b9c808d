package table

// HintHeartbeat is changelog.HintHeartbeat, kept here only for migrator/throttle_lag.go, which
// another change moves into throttle/: once the throttle reads the heartbeat through
// changelog.Table.ReadHeartbeat, delete this file (the changelog package owns the table's rows).
const HintHeartbeat = "heartbeat"
