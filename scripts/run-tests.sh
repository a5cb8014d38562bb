#!/usr/bin/env bash
# The whole test suite: ruff (lint and format), the type checker (mypy, scripts/typecheck.py), import
# cycles between phobos's packages (scripts/import_cycles.py), lit regression tests, the pytest
# suites, then a bounded, seeded fuzz run (test/fuzz/fuzz.py) that fails on any traceback, crash,
# hang or unlocated error of the tools.
# Fails when any test fails and when either runner finds no tests at all
# (pytest's exit code 5 is a failure here, never a silent pass).
#
#   scripts/run-tests.sh               the fuzz step runs FUZZ_CASES cases (default 400, ~2 minutes on 2 cores)
#   scripts/run-tests.sh --fuzz-long   the fuzz step runs for FUZZ_SECONDS (default 1800) instead
# Environment: FUZZ_CASES, FUZZ_SECONDS (a time bound instead of a count), FUZZ_SEED (default 1),
# FUZZ_JOBS (default 2). Reproducers of failures go to a new folder of their own (printed), so that
# runs at the same time in one checkout do not overwrite each other's.
set -u
cd "$(dirname "$0")/.."

fuzz_long=0
for arg in "$@"; do
    case "$arg" in
        --fuzz-long) fuzz_long=1 ;;
        *) echo "usage: $0 [--fuzz-long]" >&2; exit 2 ;;
    esac
done

status=0
echo "== ruff (lint and format, settings in pyproject.toml)"
ruff check --quiet . && ruff format --check --quiet .
ruff_rc=$?
[ "$ruff_rc" -eq 0 ] || status=1

echo "== types (mypy through scripts/typecheck.py, settings in pyproject.toml)"
python scripts/typecheck.py
types_rc=$?
[ "$types_rc" -eq 0 ] || status=1

echo "== imports (no cycle between packages, imports inside functions included: scripts/import_cycles.py)"
python scripts/import_cycles.py
imports_rc=$?
[ "$imports_rc" -eq 0 ] || status=1

echo "== lit (test/)"
lit_log=$(mktemp)
lit -sv test 2>&1 | tee "$lit_log"
lit_rc=${PIPESTATUS[0]}
if ! grep -q "Total Discovered Tests: [1-9]" "$lit_log"; then
    echo "error: lit discovered no tests" >&2
    lit_rc=1
fi
rm -f "$lit_log"
[ "$lit_rc" -eq 0 ] || status=1

echo "== pytest (test/unit, test/browser)"
pytest -q -p no:cacheprovider
py_rc=$?
if [ "$py_rc" -eq 5 ]; then
    echo "error: pytest collected no tests" >&2
    status=1
elif [ "$py_rc" -ne 0 ]; then
    status=1
fi

echo "== fuzz (test/fuzz/fuzz.py)"
fuzz_bound=(--cases "${FUZZ_CASES:-400}")
if [ "$fuzz_long" -eq 1 ]; then
    fuzz_bound=(--seconds "${FUZZ_SECONDS:-1800}")
elif [ -n "${FUZZ_SECONDS:-}" ]; then
    fuzz_bound=(--seconds "$FUZZ_SECONDS")
fi
python test/fuzz/fuzz.py --seed "${FUZZ_SEED:-1}" --jobs "${FUZZ_JOBS:-2}" "${fuzz_bound[@]}"
fuzz_rc=$?
[ "$fuzz_rc" -eq 0 ] || status=1

if [ "$status" -eq 0 ]; then
    echo "== all tests passed"
else
    echo "== TESTS FAILED (ruff rc=$ruff_rc, types rc=$types_rc, imports rc=$imports_rc, lit rc=$lit_rc, pytest rc=$py_rc, fuzz rc=$fuzz_rc)" >&2
fi
exit "$status"
