# Shared by the scripts that render bracelet's pages in Debian's headless Chromium (sourced, not run).
#
# render_setup NAME: sets BIN (BRACELET_BIN, else the release or the debug build), CHROMIUM (default
# chromium, installed from Debian's archive when missing and running as root) and VENV (a Python venv
# with Pillow, default .build-venv), or exits 2 saying what is missing; NAME begins the messages.
# render_chrome WIDTH HEIGHT: sets the array `chrome`: headless Chromium with a window of that many
# pixels, its own background traffic off and its log on stderr (where the checks look for console messages).

render_setup() {
    local name=$1 candidate
    VENV=${VENV:-.build-venv}
    CHROMIUM=${CHROMIUM:-chromium}
    BIN=${BRACELET_BIN:-}
    if [[ -z "$BIN" ]]; then
        for candidate in .build/release/bracelet .build/debug/bracelet; do
            [[ -x "$candidate" ]] && { BIN=$candidate; break; }
        done
    fi
    [[ -x "$BIN" ]] || { echo "$name: no bracelet binary; run swift build first (or set BRACELET_BIN)" >&2; exit 2; }
    if ! command -v "$CHROMIUM" > /dev/null; then
        if [[ $(id -u) == 0 ]]; then apt-get install -y chromium > /dev/null; else
            echo "$name: chromium is missing; install it with: sudo apt-get install -y chromium" >&2; exit 2
        fi
    fi
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check pillow
}

render_chrome() {
    chrome=("$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
            --disable-background-networking --disable-component-update --disable-sync
            --window-size="$1,$2" --enable-logging=stderr --v=0)
}
