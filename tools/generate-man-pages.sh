#!/usr/bin/env bash
# tools/generate-man-pages.sh BRACELET OUTDIR: the man pages of `bracelet` and of every subcommand,
# generated from the commands themselves by swift-argument-parser's generate-manual tool (the tool
# behind `swift package plugin generate-manual`, run here on the given binary so the pages describe
# exactly that build), then named as Debian names them: bracelet-listen.1 for `bracelet listen`.
# The pages are dated by SOURCE_DATE_EPOCH when set (dpkg sets it from debian/changelog).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: tools/generate-man-pages.sh BRACELET OUTDIR" >&2; exit 2; }
bin=$(realpath "$1"); out=$2
cd "$(dirname "$0")/.."
swift build --product generate-manual >/dev/null
tool=$(swift build --show-bin-path)/generate-manual
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
"$tool" "$bin" --multi-page --date "$date" --section 1 --output-directory "$raw"
mkdir -p "$out"
python3 - "$raw" "$out" <<'PY'
import os, re, sys
raw, out = sys.argv[1], sys.argv[2]
def debian_name(name):  # "bracelet.db.check" -> "bracelet-db-check"
    return name.replace(".", "-")
for file in sorted(os.listdir(raw)):
    page = file[:-len(".1")]
    if page == "bracelet.help":  # ArgumentParser's own `help` subcommand: bracelet(1) and --help cover it
        continue
    lines, named, command = [], False, ""
    for line in open(os.path.join(raw, file), encoding="utf-8").read().split("\n"):
        if line.startswith(".Nm \"") and not named:
            # NAME lists the page's own name (whatis/apropos read one word); SYNOPSIS shows the command.
            command = line[4:].strip('"')
            line, named = ".Nm " + command.replace(" ", "-"), True
        elif line == ".Nm" and named and " " in command:
            line = '.Nm "' + command + '"'
        elif line.startswith(".Dt "):
            line = ".Dt " + debian_name(line[4:])
        elif line.startswith(".Xr bracelet."):
            if line.startswith(".Xr bracelet.help "):
                continue
            line = re.sub(r"^\.Xr (bracelet\.\S+)", lambda m: ".Xr " + debian_name(m.group(1)), line)
        elif line == "":
            line = ".Pp"  # mdoc breaks paragraphs with .Pp, not blank lines
        elif line.startswith(" "):
            # An indented line is an example, kept as written; consecutive ones share one literal block
            # (a continuation line keeps its extra indent).
            text = line[2:] if line.startswith("  ") else line.lstrip()
            if lines and lines[-1] == ".Ed":
                lines[-1] = text
                lines.append(".Ed")
                continue
            lines += [".Bd -literal -offset indent", text, ".Ed"]
            continue
        elif line.startswith("'") or (line.startswith(".") and line[1:3].strip() and not re.match(r"^\.[A-Z][a-z]|^\.\\\"", line)):
            line = "\\&" + line  # text that would read as a request
        lines.append(line)
    text = "\n".join(lines).rstrip("\n") + "\n"
    # The last SEE ALSO entry must not end with a comma once help is gone.
    text = re.sub(r"(\.Xr \S+ 1) ,\n(?!\.Xr)", r"\1\n", text)
    open(os.path.join(out, debian_name(page) + ".1"), "w", encoding="utf-8").write(text)
PY
