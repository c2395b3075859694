#!/usr/bin/env python3
"""Checks one rendered `bracelet report --study` page (see tools/render-study.sh) against its CSV
(`--format csv` of the same database), not against the page's own code: a cell per participant and
day whose state and minutes (the numbers shown and its data) are the CSV's, the counts on top are
the CSV's participants with and without a reason for attention, every colour drawn has a legend
entry, the PDF is A4 landscape, and the page loads nothing, logs nothing and is not blank.
"""
import argparse
import csv
import sys
from html.parser import HTMLParser

import page_checks


class StudyElements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells = {}      # (device, date) -> {"state", "worn", "recorded", "classes", "text"}
        self.rows = []       # data-device of each participant row, every table
        self.swatches = set()
        self.counts = {}     # "on-track" / "attention" -> text
        self.device = None
        self.cell = None
        self.count = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and "participant" in classes:
            self.device = a.get("data-device")
            self.rows.append(self.device)
        elif tag == "td" and "d" in classes and self.device is not None:
            key = (self.device, a.get("data-date"))
            self.cell = {"state": a.get("data-state"), "worn": a.get("data-worn", ""), "recorded": a.get("data-recorded", ""),
                         "classes": classes, "text": ""}
            self.cells[key] = self.cell
        elif tag == "br" and self.cell is not None:
            self.cell["text"] += " "
        elif tag == "i" and "sw" in classes:
            self.swatches |= set(classes) - {"sw"}
        elif tag == "p" and a.get("id") in ("on-track", "attention"):
            self.count = a["id"]
            self.counts[self.count] = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
        if self.count:
            self.counts[self.count] += data

    def handle_endtag(self, tag):
        if tag == "td":
            self.cell = None
        elif tag == "tr":
            self.device = None
        elif tag == "p":
            self.count = None


def fail(name, message):
    print(f"FAIL {name}: {message}")
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    for option in ("name", "html", "dom", "csv", "png", "pdf", "netlog"):
        p.add_argument("--" + option, required=True)
    p.add_argument("--logs", nargs="+", required=True)
    o = p.parse_args()
    name = o.name

    page, urls, problem = page_checks.rendered(o.html, o.netlog, o.logs)
    if problem:
        fail(name, problem)

    lines = list(csv.DictReader(open(o.csv, newline="", encoding="utf-8")))
    if not lines:
        fail(name, "the CSV has no line")
    parser = StudyElements()
    parser.feed(open(o.dom, encoding="utf-8").read())

    # A cell per CSV line, with its numbers, shown and as data.
    for line in lines:
        key = (line["device"], line["date"])
        cell = parser.cells.get(key)
        if cell is None:
            fail(name, f"no cell for {key}")
        if (cell["state"], cell["worn"], cell["recorded"]) != (line["state"], line["worn_min"], line["recorded_min"]):
            fail(name, f"{key}: page {cell['state']} {cell['worn']}/{cell['recorded']}, CSV {line['state']} {line['worn_min']}/{line['recorded_min']}")
        shown = cell["text"].replace("*", " ").replace("…", " ").split()
        expected = [line["worn_min"], line["recorded_min"]] if line["worn_min"] else []
        if [t for t in shown if t.isdigit()] != expected:
            fail(name, f"{key}: the cell shows {cell['text']!r}, the CSV {expected}")
    if len(parser.cells) != len(lines):
        fail(name, f"{len(parser.cells)} cells on the page, {len(lines)} CSV lines")

    # One row per participant in the first table (the health columns' one).
    participants = list(dict.fromkeys(line["device"] for line in lines))
    first_table = parser.rows[:len(participants)]
    if first_table != participants:
        fail(name, f"rows {first_table}, CSV participants {participants}")

    # The counts on top: participants with and without a reason for attention.
    attention = {line["device"] for line in lines if line["attention"]}
    counts = {k: int(v.split()[0]) for k, v in parser.counts.items()}
    if counts != {"on-track": len(participants) - len(attention), "attention": len(attention)}:
        fail(name, f"counts {counts}, but the CSV has {len(attention)} of {len(participants)} needing attention")

    # A legend entry for every colour drawn.
    drawn = {c for cell in parser.cells.values() for c in cell["classes"] if c not in ("d", "open")}
    if drawn - parser.swatches:
        fail(name, f"colours drawn without a legend entry: {sorted(drawn - parser.swatches)}")

    # A4 landscape (841.9 x 595.3 pt).
    pages, size = page_checks.pdf_pages(o.pdf)
    if pages < 1 or size is None or abs(size[0] - 841.9) > 2 or abs(size[1] - 595.3) > 2:
        fail(name, f"the PDF has {pages} page(s) of {size} pt, expected A4 landscape (841.9 x 595.3)")

    problem = page_checks.not_blank(o.png)
    if problem:
        fail(name, problem)
    share, _, image_size = page_checks.ink(o.png)
    print(f"ok {name}: {len(participants)} participants x {len(lines) // len(participants)} days, every cell equal to the CSV, "
          f"counts {counts}, {len(drawn)} colours each in the legend, {pages} A4 landscape page(s), "
          f"screenshot {image_size[0]}x{image_size[1]} {share:.0%} ink, {len(urls)} page request(s), all local, no console message")


if __name__ == "__main__":
    main()
