# The project's virtualenv, installed only when needed: sourced by scripts/serve and scripts/test.
#
# ensure_venv NAME PIP-ARGS... creates .venv if it is missing and runs `pip install PIP-ARGS` unless the
# stamp .venv/.stamp-NAME records the same pyproject.toml and the same arguments (a careful script's
# rule: dependencies change only with pyproject.toml). So a second run goes straight to its command.
# pip runs with -qq: the machine's own pip notices (an index location that does not exist, say) are not
# the user's business; an error still prints, and the script stops on it (set -e).

venv_fingerprint() {
    { cat pyproject.toml; printf '%s\n' "$@"; } | sha256sum | cut -d' ' -f1
}

ensure_venv() {
    local name=$1
    shift
    local stamp=".venv/.stamp-$name" want
    want=$(venv_fingerprint "$@")
    if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    echo "qmlite: installing into .venv (once; again only when pyproject.toml changes)..." >&2
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
        PIP_DISABLE_PIP_VERSION_CHECK=1 .venv/bin/python -m pip install -qq --upgrade pip
    fi
    PIP_DISABLE_PIP_VERSION_CHECK=1 .venv/bin/python -m pip install -qq "$@"
    # An editable install writes no bytecode, and where PYTHONDONTWRITEBYTECODE is set (CI images often
    # set it) every start would compile ~170 modules again, ~300 ms of a ~300 ms start (decision ST1):
    # compile them once here, as an installed wheel would have them.
    .venv/bin/python -m compileall -q -j 0 pcf registry server client qmlite pipeline >/dev/null || true
    echo "$want" > "$stamp"
}
