#!/usr/bin/env bash
# The whole test suite: ruff (lint and format), lit regression tests, then the pytest suites.
# Fails when any test fails and when either runner finds no tests at all
# (pytest's exit code 5 is a failure here, never a silent pass).
set -u
cd "$(dirname "$0")/.."

status=0
echo "== ruff (lint and format, settings in pyproject.toml)"
ruff check --quiet . && ruff format --check --quiet .
ruff_rc=$?
[ "$ruff_rc" -eq 0 ] || status=1

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

echo "== pytest (test/unit)"
pytest -q -p no:cacheprovider
py_rc=$?
if [ "$py_rc" -eq 5 ]; then
    echo "error: pytest collected no tests" >&2
    status=1
elif [ "$py_rc" -ne 0 ]; then
    status=1
fi

if [ "$status" -eq 0 ]; then echo "== all tests passed"; else echo "== TESTS FAILED (ruff rc=$ruff_rc, lit rc=$lit_rc, pytest rc=$py_rc)" >&2; fi
exit "$status"
