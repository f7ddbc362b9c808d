#!/usr/bin/env bash
# gh-ost-wrapper.sh: a migration wrapper written the way gh-ost's users write them (runbooks, cron
# jobs, chat-ops), run against go-ghostlite by wrapper_test.go. It knows nothing of go-ghostlite:
# it watches the text log for gh-ost's own lines.
#
#   GHOST=/path/to/gh-ost gh-ost-wrapper.sh <flags: host, credentials, --database, --table, --alter...>
#
# 1. starts the migration with a postponed cut-over and checkpoints, its log in a file;
# 2. waits for "Row copy complete", then for "checkpoint success at coords=";
# 3. removes the postpone flag file (the cut-over goes ahead) and waits for the exit;
# 4. on success prints the "Done migrating" line; on failure the FATAL line, and exits 1.
# Exit codes: 0 migrated, 1 the migration failed (FATAL line printed), 2 timed out waiting.
set -u

GHOST=${GHOST:-gh-ost}
TIMEOUT=${TIMEOUT:-120} # seconds to wait for each line
work=$(mktemp -d)
log=$work/migration.log
flag=$work/postpone-cut-over.flag
trap 'rm -rf "$work"' EXIT
touch "$flag"

"$GHOST" "$@" --execute --checkpoint --postpone-cut-over-flag-file="$flag" >"$log" 2>&1 &
pid=$!

fail() {
	wait "$pid"
	fatal=$(grep -m1 'FATAL ' "$log")
	echo "migration failed: ${fatal:-no FATAL line in the log}"
	exit 1
}

# wait_for PATTERN: until the log has a line with PATTERN; fails when the tool exits first.
wait_for() {
	local waited=0
	until grep -q -- "$1" "$log"; do
		kill -0 "$pid" 2>/dev/null || fail
		if [ "$waited" -ge $((TIMEOUT * 10)) ]; then
			echo "timed out after ${TIMEOUT}s waiting for \"$1\""
			kill "$pid"
			exit 2
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
}

wait_for "Row copy complete"
echo "row copy complete; cut-over postponed"
wait_for "checkpoint success at coords="
echo "checkpointed: $(grep -m1 -o 'checkpoint success at coords=[^ ]*' "$log")"

rm -f "$flag"
if ! wait "$pid"; then
	fail
fi
done_line=$(grep -m1 -o 'Done migrating [^ ;]*' "$log")
if [ -z "$done_line" ]; then
	echo "exit 0 but no \"Done migrating\" line"
	exit 1
fi
echo "$done_line"
