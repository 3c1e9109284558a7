# clients/world-lib.sh — what clients/import-world.sh and export-world.sh
# share; sourced, not run.

# check_table NAME: TABLE is spliced into SQL, so accept only a plain
# [schema.]name of identifiers (exit 2 otherwise).
check_table() {
    local ident='[A-Za-z_][A-Za-z0-9_$]*'
    if ! [[ $1 =~ ^($ident\.)?$ident$ ]]; then
        echo "$0: table name '$1' must be a plain [schema.]name" >&2
        exit 2
    fi
}

# find_tool: sets tool to $SLIMETOOL, else build/slimetool of this
# repository, else slimetool on PATH (exit 1 when there is none).
find_tool() {
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    tool=${SLIMETOOL:-}
    [ -n "$tool" ] && return 0
    if [ -x "$here/build/slimetool" ]; then
        tool=$here/build/slimetool
    elif command -v slimetool >/dev/null 2>&1; then
        tool=$(command -v slimetool)
    else
        echo "$0: slimetool not found: run 'make tool' or set SLIMETOOL" >&2
        exit 1
    fi
}
