#!/usr/bin/env python3
"""Checks that .ci/run runs README.md's test command exactly as a reader types it, before anything else.

README.md's first ```sh ci block is the test command a contributor runs ("To run the tests"). .ci/run
must begin with the same command lines, character for character and in the same order: only lines
that set up the shell may come before them (comments, blank lines, `set`, `cd`, `export`). So CI
cannot pass while the README's command fails, nor drift from it. Every command line of the other
```sh ci blocks must be a line of .ci/run (it runs them, in its own order). Takes well under a second.

`--self-test` checks that a changed, reordered, missing or late command is reported.

Usage: tools/check-ci-readme.py [--self-test] [--readme FILE] [--ci FILE]
"""
import argparse
import os
import re
import sys

SETUP = re.compile(r"^(set|cd|export)\b")


def ci_blocks(text):
    """The command lines of each ```sh ci block of the README, in order."""
    blocks = re.findall(r"^```sh ci\n(.*?)^```", text, flags=re.S | re.M)
    return [[l for l in b.splitlines() if l.strip() and not l.lstrip().startswith("#")] for b in blocks]


def readme_commands(text):
    """The command lines of the first ```sh ci block (the test command); an error text when there is none."""
    blocks = ci_blocks(text)
    if not blocks:
        return None, "README.md has no ```sh ci block: its first one is the test command .ci/run begins with"
    if not blocks[0]:
        return None, "README.md's first ```sh ci block holds no command"
    return blocks[0], None


def ci_first_commands(text, count):
    """The first `count` command lines of .ci/run after the shell's setup, with their line numbers."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not found and SETUP.match(stripped):
            continue
        found.append((number, line))
        if len(found) == count:
            break
    return found


def problems(readme_text, ci_text):
    """What is wrong (an empty list when .ci/run starts with the README's command)."""
    commands, error = readme_commands(readme_text)
    if error:
        return [error]
    first = ci_first_commands(ci_text, len(commands))
    found = []
    for i, command in enumerate(commands):
        if i >= len(first):
            found.append(f".ci/run ends before the README's command line {i + 1}: {command!r}")
        elif first[i][1] != command:
            found.append(f".ci/run line {first[i][0]} is {first[i][1]!r} where README.md's test command has {command!r}")
    ci_lines = {line.strip() for line in ci_text.splitlines()}
    for block in ci_blocks(readme_text)[1:]:
        found += [f"README.md's ```sh ci command {c!r} is not a line of .ci/run: add it there" for c in block if c.strip() not in ci_lines]
    if found and any(f.startswith(".ci/run") for f in found):
        found.append("make .ci/run begin with README.md's ```sh ci block, line for line "
                     "(only comments, set, cd and export may come before it)")
    return found


def self_test(readme_text, ci_text):
    commands, error = readme_commands(readme_text)
    if error:
        sys.exit("check-ci-readme: self-test needs a valid README: " + error)
    first_line = commands[0]
    cases = [
        ("a changed command", readme_text, ci_text.replace(first_line, first_line + " --quiet", 1)),
        ("a missing command", readme_text, ci_text.replace(first_line + "\n", "", 1)),
        ("a command run late", readme_text, ci_text.replace(first_line + "\n", "", 1) + first_line + "\n"),
        ("another command first", readme_text, re.sub(r"^(cd [^\n]*\n)", r"\1true\n", ci_text, count=1, flags=re.M)),
        ("a README without the block", readme_text.replace("```sh ci\n", "```sh\n"), ci_text),
        ("a later ci block's command not run", readme_text.replace("```sh ci\n" + first_line, "```sh ci\n" + first_line, 1)
         + "\n```sh ci\ntools/not-in-ci.sh\n```\n", ci_text),
    ]
    if len(commands) > 1:
        cases.append(("commands swapped", readme_text, ci_text.replace(commands[0] + "\n" + commands[1],
                                                                        commands[1] + "\n" + commands[0], 1)))
    failed = 0
    if problems(readme_text, ci_text):
        print("check-ci-readme: self-test: the real files already fail", file=sys.stderr)
        failed += 1
    for name, readme, ci in cases:
        if not problems(readme, ci):
            print(f"check-ci-readme: self-test: {name} was not reported", file=sys.stderr)
            failed += 1
    if failed:
        sys.exit(1)
    print(f"check-ci-readme: self-test: {len(cases)} broken copies, each reported")


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--readme", default=os.path.join(root, "README.md"))
    parser.add_argument("--ci", default=os.path.join(root, ".ci", "run"))
    args = parser.parse_args()
    readme_text, ci_text = open(args.readme).read(), open(args.ci).read()
    if args.self_test:
        self_test(readme_text, ci_text)
        return
    found = problems(readme_text, ci_text)
    if found:
        for line in found:
            print("check-ci-readme: " + line, file=sys.stderr)
        sys.exit(1)
    print("check-ci-readme: .ci/run begins with README.md's test command")


if __name__ == "__main__":
    main()
