#!/usr/bin/env bash
# Runs the root module's test suite while two busy loops take both cores, as
# on a shared CI machine. The loops are started here and killed by their PIDs
# when the script exits, however it exits; the exit code is the tests'.
# Arguments, if any, replace the package list `./...` (e.g.
# `-run TestX -count=5 ./executors/zookeeper/`).
set -uo pipefail

go=${GO:-go}
pids=()

stop_loops() {
	if [ ${#pids[@]} -gt 0 ]; then
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
	fi
	pids=()
}
trap stop_loops EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in 1 2; do
	sh -c 'while :; do :; done' &
	pids+=("$!")
done
echo "under-load.sh: busy loops running as PIDs ${pids[*]}" >&2

start=$(date +%s)
LOCK4GO_REQUIRE_BACKENDS=1 "$go" test -race -count=1 -timeout 40m "${@:-./...}"
rc=$?
echo "under-load.sh: go test exited $rc after $(($(date +%s) - start)) s" >&2
exit "$rc"
