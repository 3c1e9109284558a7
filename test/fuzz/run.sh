#!/usr/bin/env bash
# test/fuzz/run.sh — run or replay the libFuzzer targets (called by make).
#
#   run.sh regress 0 TARGET...       replay test/fuzz/regress/<t>/ and the seeds
#   run.sh ci RUNS TARGET...         a repeatable run: RUNS inputs from a fixed
#                                    seed (FUZZ_SEED, default 1), starting from the
#                                    seeds and test/fuzz/regress/<t>/ only; what it
#                                    finds interesting goes to a temporary dir
#   run.sh fuzz SECONDS TARGET...    the open-ended campaign: a fresh random seed,
#                                    SECONDS per target, building on build/fuzz-corpus/<t>/
#
# Targets run FUZZ_JOBS at a time (default 2). The ci and fuzz modes write
# crashes, timeouts and OOMs to a directory of their own run under
# build/fuzz-artifacts/<t>/ (what an earlier run found does not fail a later
# one; with FUZZ_SAVE=1 they are also copied into test/fuzz/regress/<t>/ so
# that `make fuzz-regress` replays them).
# Logs: build/fuzz-logs/<t>.log. Exit status non-zero when any target failed.
# The ci mode is the one CI runs: the same inputs on every machine and every
# run, so it fails only when the code changed (a campaign's random draw does not
# belong in CI; run it on a developer machine and keep what it finds).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

mode=${1:?usage: run.sh regress|ci|fuzz 0|RUNS|SECONDS TARGET...}
seconds=${2:?}
shift 2
targets=("$@")
jobs=${FUZZ_JOBS:-2}
rss=${FUZZ_RSS_MB:-2048}

max_len() {
	case $1 in
		nbt|blocks|store) echo 131072 ;;
		region) echo 81920 ;;
		value) echo 262144 ;;
		slimefile) echo 131072 ;;
		schem) echo 131072 ;;
		lz4|inflate) echo 65536 ;;
		*) echo 65536 ;;
	esac
}

# ci mode: the inputs a target runs; bcodec's runs each encode with the dense
# codec (about 60 a second under ASan), so it runs a tenth of the others;
# region's and value's inputs are whole files and values (13 and 15 ms each
# here, 267 and 305 s for 20000 inputs: a third of the lane), so they run a quarter
ci_runs() {
	case $1 in
		bcodec | bcodec2 | bcodec3 | bcodec4 | bcodec5) echo $(($2 / 10)) ;;
		region | value) echo $(($2 / 4)) ;;
		*) echo "$2" ;;
	esac
}

norandom=
if [ "$mode" = ci ]; then
	if setarch "$(uname -m)" -R true 2>/dev/null; then
		norandom="setarch $(uname -m) -R"
	else
		echo "fuzz: WARNING: setarch -R is refused here; the ci run is repeatable only up to address randomisation" >&2
	fi
fi

mkdir -p build/fuzz-logs
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
	local t=$1 bin=build/fuzz/fuzz_$1 log=build/fuzz-logs/$1.log rc=0
	local seeds=build/fuzz-seeds/$t regress=test/fuzz/regress/$t
	[ -x "$bin" ] || { echo "fuzz: $bin not built (make fuzz-build)" >&2; return 1; }
	mkdir -p "$seeds" "$regress" "build/fuzz-artifacts/$t"
	# this run's findings, apart from earlier runs'
	local art
	art=$(mktemp -d "build/fuzz-artifacts/$t/$mode.XXXXXX")
	if [ "$mode" = regress ]; then
		"$bin" -runs=0 -rss_limit_mb="$rss" -timeout=60 -print_final_stats=1 \
			-artifact_prefix="$art/" \
			"$regress" "$seeds" >"$log" 2>&1 || rc=$?
	elif [ "$mode" = ci ]; then
		local scratch
		scratch=$(mktemp -d)
		# the same inputs every run: a fixed seed, no corpus reloads (timed),
		# and no address randomisation (compared pointers feed the mutator);
		# the timeout is wall-clock and CI runs this niced beside a busy lane,
		# where a 2 s input once took over 30 s: it is there to catch a hang
		$norandom "$bin" -seed="${FUZZ_SEED:-1}" -reload=0 -runs="$(ci_runs "$t" "$seconds")" -max_len="$(max_len "$t")" \
			-rss_limit_mb="$rss" -timeout="${FUZZ_CI_TIMEOUT:-300}" -print_final_stats=1 \
			-artifact_prefix="$art/" \
			"$scratch" "$seeds" "$regress" >"$log" 2>&1 || rc=$?
		rm -rf "$scratch"
	else
		# the campaign goes on past a finding (one child process at a time:
		# -fork=1), so one early crash or timeout does not end a long run;
		# its wall-clock timeout is long because it runs beside other work
		mkdir -p "build/fuzz-corpus/$t"
		"$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
			-max_total_time="$seconds" -max_len="$(max_len "$t")" \
			-rss_limit_mb="$rss" -timeout="${FUZZ_TIMEOUT:-120}" -print_final_stats=1 \
			-artifact_prefix="$art/" \
			"build/fuzz-corpus/$t" "$seeds" "$regress" >"$log" 2>&1 || rc=$?
		# a finding that was ignored to go on still fails the run
		if compgen -G "$art/crash-*" >/dev/null ||
			compgen -G "$art/timeout-*" >/dev/null ||
			compgen -G "$art/oom-*" >/dev/null; then
			[ "$rc" = 0 ] && rc=1
		fi
	fi
	rmdir "$art" 2>/dev/null || true
	local runs
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	# fork mode reports its executions on its progress lines ("#N: cov: ...")
	[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9][0-9]*\):\{0,1\}[[:space:]].*/\1/p' "$log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		printf 'fuzz %-8s %-7s ok: %s executions (log %s)\n' "$t" "$mode" "${runs:-?}" "$log"
		return 0
	fi
	printf 'fuzz %-8s %-7s FAILED (exit %s) — log %s:\n' "$t" "$mode" "$rc" "$log"
	grep -E 'ERROR: |runtime error|FUZZ INVARIANT|SUMMARY|Test unit written|Running:|^ *#[0-9]+ ' "$log" | head -n 60
	if [ "$mode" != regress ] && [ "${FUZZ_SAVE:-0}" = 1 ]; then
		local a
		for a in "$art"/crash-* "$art"/timeout-* "$art"/oom-* "$art"/leak-*; do
			[ -f "$a" ] || continue
			cp -n "$a" "$regress/" && echo "  saved $regress/$(basename "$a")"
		done
	fi
	return 1
}

failed=0
running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || failed=1
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
[ "$failed" = 0 ] && echo "fuzz $mode: all ${#targets[@]} targets passed" ||
	echo "fuzz $mode: FAILED (see above)"
exit "$failed"
