#!/usr/bin/env python3
"""Checks that Package.swift tells the truth about the module graph.

Rules (each violation is printed with what to do, and the exit status is 1):
  * every module a target's Swift sources import that the package builds (a target of this package or
    a product it depends on) is a declared dependency of that target ("missing"),
  * every declared dependency is imported by at least one of the target's Swift sources ("unused"),
  * a library target imports only library targets listed above it in the layering comment of
    Package.swift ("upward"); every Swift library target is listed there exactly once.
Executables, tests and fuzz harnesses sit above every layer; C and system-library targets below.

The manifest is read through `swift package dump-package` (with BRACELET_FUZZ=1, so the fuzz harnesses
are checked too). `--self-test` copies the sources to a temporary directory, breaks them on purpose
(an upward import, an unused dependency, a missing one) and fails unless each break is reported.

Usage: tools/check-modules.py [--self-test] [--manifest-json FILE]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE)
LAYER_LINE = re.compile(r"^//\s{2,}([A-Za-z_][A-Za-z0-9_]*)\s{2,}\S")
SWIFT_LIBRARY = "regular"


def dump_manifest(root):
    env = dict(os.environ, BRACELET_FUZZ="1")
    scratch = os.path.join(tempfile.gettempdir(), "bracelet-check-modules-%d" % os.getuid())
    result = subprocess.run(["swift", "package", "--package-path", root, "--scratch-path", scratch, "dump-package"],
                            env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("check-modules: `swift package dump-package` failed; fix Package.swift first:\n" + result.stderr)
    return json.loads(result.stdout)


def layers(root):
    """Library modules in the order of the layering comment of Package.swift, bottom first."""
    names = []
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as manifest:
        inside = False
        for line in manifest:
            if line.startswith("// Layers, bottom to top"):
                inside = True
                continue
            if inside and not line.startswith("//"):
                break
            match = LAYER_LINE.match(line) if inside else None
            if match:
                names.append(match.group(1))
    return names


def target_dir(root, target):
    if target.get("path"):
        return os.path.join(root, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(root, base, target["name"])


def imports_of(directory):
    """Module name -> first file (relative) that imports it, over the Swift files under `directory`."""
    found = {}
    for dirpath, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as source:
                for module in IMPORT.findall(source.read()):
                    found.setdefault(module, path)
    return found


def dependency_name(dependency):
    for kind in ("byName", "target", "product"):
        if kind in dependency:
            return dependency[kind][0]
    raise ValueError("unknown dependency form %r" % dependency)


def check(root, manifest):
    problems = []
    targets = {t["name"]: t for t in manifest["targets"]}
    products = {dependency_name(d) for t in manifest["targets"] for d in t["dependencies"] if "product" in d}
    buildable = set(targets) | products
    order = layers(root)
    rank = {name: index for index, name in enumerate(order)}
    for name in order:
        if order.count(name) > 1:
            problems.append("Package.swift: %s is listed twice in the layering comment; keep one line" % name)
        if name not in targets:
            problems.append("Package.swift: the layering comment lists %s, which is no target; remove the line" % name)
    for name, target in sorted(targets.items()):
        if target["type"] == "system":
            continue
        directory = target_dir(root, target)
        imported = {m: f for m, f in imports_of(directory).items() if m in buildable and m != name}
        declared = {dependency_name(d) for d in target["dependencies"]}
        has_swift = any(f.endswith(".swift") for _, _, fs in os.walk(directory) for f in fs)
        if not has_swift:
            continue  # a C target: its dependencies are its headers' business
        if target["type"] == SWIFT_LIBRARY and name not in rank:
            problems.append("Package.swift: library %s is missing from the layering comment; add a line for it "
                            "below every module it imports" % name)
        for module, path in sorted(imported.items()):
            where = os.path.relpath(path, root)
            if module not in declared:
                problems.append("missing: %s imports %s (%s) but Package.swift does not declare it; add \"%s\" to "
                                "the dependencies of %s" % (name, module, where, module, name))
            if target["type"] == SWIFT_LIBRARY and name in rank and module in rank and rank[module] >= rank[name]:
                problems.append("upward: %s imports %s (%s), which is not below it in the layering comment; move "
                                "the code that needs it up into %s's users, or down into a lower module"
                                % (name, module, where, module))
            if target["type"] == SWIFT_LIBRARY and module in targets and targets[module]["type"] in ("executable", "test"):
                problems.append("upward: library %s imports the %s target %s (%s)" % (name, targets[module]["type"],
                                                                                     module, where))
        for module in sorted(declared - set(imported)):
            problems.append("unused: Package.swift declares %s -> %s but no source of %s imports it; remove it "
                            "from the dependencies" % (name, module, name))
    return problems


def self_test(root, manifest):
    """Breaks a copy of the tree in three ways and expects each to be reported."""
    cases = [
        ("upward import", "Sources/BraceletProtocol", "import BraceletStore\n", None,
         "upward: BraceletProtocol imports BraceletStore"),
        ("undeclared import", "Sources/BraceletSummaries", "import BraceletProtocol\n", None,
         "missing: BraceletSummaries imports BraceletProtocol"),
        ("unused dependency", "Sources/BraceletSync", None, "CCrypto",
         "unused: Package.swift declares BraceletSync -> CCrypto"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        def fresh_copy():
            copy = os.path.join(scratch, "tree")
            shutil.rmtree(copy, ignore_errors=True)
            os.makedirs(copy)
            shutil.copy(os.path.join(root, "Package.swift"), copy)
            for top in ("Sources", "Tests", "Fuzz"):
                if os.path.isdir(os.path.join(root, top)):
                    shutil.copytree(os.path.join(root, top), os.path.join(copy, top),
                                    ignore=lambda d, names: [n for n in names if n in ("Fixtures",) or n.endswith(".bin")])
            return copy

        clean = check(fresh_copy(), manifest)
        if clean:
            print("self-test: the unchanged tree already fails; fix that first:\n  " + "\n  ".join(clean))
            return 1
        for label, directory, prepend, drop, expected in cases:
            copy = fresh_copy()
            target = os.path.join(copy, directory)
            files = sorted(os.path.join(d, f) for d, _, fs in os.walk(target) for f in fs if f.endswith(".swift"))
            if prepend:
                with open(files[0], encoding="utf-8") as source:
                    text = source.read()
                with open(files[0], "w", encoding="utf-8") as source:
                    source.write(prepend + text)
            if drop:
                for path in files:
                    with open(path, encoding="utf-8") as source:
                        text = source.read()
                    with open(path, "w", encoding="utf-8") as source:
                        source.write(re.sub(r"^\s*import %s\s*$" % drop, "", text, flags=re.MULTILINE))
            problems = check(copy, manifest)
            if any(p.startswith(expected) for p in problems):
                print("self-test: %s: reported (%s)" % (label, expected))
            else:
                failures += 1
                print("self-test: %s: NOT reported; the check found:\n  %s" % (label, "\n  ".join(problems) or "nothing"))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true", help="break a copy of the tree and expect the check to fail")
    parser.add_argument("--manifest-json", help="output of `swift package dump-package` to use instead of running it")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.manifest_json:
        with open(args.manifest_json, encoding="utf-8") as dump:
            manifest = json.load(dump)
    else:
        manifest = dump_manifest(root)
    if args.self_test:
        return self_test(root, manifest)
    problems = check(root, manifest)
    for problem in problems:
        print(problem)
    if problems:
        print("check-modules: %d problem(s) in the module graph" % len(problems))
        return 1
    print("check-modules: Package.swift dependencies equal the imports of all %d targets; no upward import"
          % len(manifest["targets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
