#!/usr/bin/env python3
"""Checks one rendered `bracelet report` page (see tools/render-report.sh).

Expected counts come from the exports of the same day (slots CSV, IEEE 1752 sleep-stage summary),
not from the report's own code: one curve path per series with data, as many sub-paths as the data
has runs (never a line through missing data), one bar per hour with steps, one segment per stage run.
"""
import argparse
import csv
import json
import re
import sys
from datetime import datetime
from html.parser import HTMLParser

from PIL import Image

import page_checks


class SVGElements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svg = None
        self.svgs = {}  # id -> {"title": bool, "paths": [d], "rects": {class: n}}
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "svg":
            self.svg = a.get("id", f"svg{len(self.svgs)}")
            self.svgs[self.svg] = {"title": False, "paths": [], "rects": {}}
        elif self.svg and tag == "title" and not self.svgs[self.svg]["title"]:
            self.in_title = True
        elif self.svg and tag == "path" and "curve" in classes:
            self.svgs[self.svg]["paths"].append((classes, a.get("d", "")))
        elif self.svg and tag == "rect":
            for c in classes:
                self.svgs[self.svg]["rects"][c] = self.svgs[self.svg]["rects"].get(c, 0) + 1

    def handle_data(self, data):
        if self.in_title and data.strip():
            self.svgs[self.svg]["title"] = True

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "svg":
            self.svg = None


def fail(name, message):
    print(f"FAIL {name}: {message}")
    sys.exit(1)


def runs(times, step):
    times = sorted(times)
    return sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] > step)


def main():
    p = argparse.ArgumentParser()
    for option in ("name", "day", "html", "dom", "png", "pdf", "netlog", "slots", "ieee"):
        p.add_argument("--" + option, required=True)
    p.add_argument("--logs", nargs="+", required=True)
    o = p.parse_args()
    name = o.name

    # Self-contained, quiet, nothing fetched: the checks every rendered page passes.
    page, urls, problem = page_checks.rendered(o.html, o.netlog, o.logs)
    if problem:
        fail(name, problem)

    # Expected elements, from the exports.
    rows = list(csv.DictReader(open(o.slots, newline="", encoding="utf-8")))
    step = int(rows[0]["slot_seconds"]) if rows else 60
    def times(column):
        return [datetime.fromisoformat(r["slot_start"]).timestamp() for r in rows if r[column] != ""]
    parser = SVGElements()
    parser.feed(open(o.dom, encoding="utf-8").read())
    svgs = parser.svgs
    for sid, svg in svgs.items():
        if not svg["title"]:
            fail(name, f"svg #{sid} has no <title> for screen readers")
    expected_curves = {"heart-rate": {"hr": "hr_bpm"}, "breath": {"breath": "breath_per_min"},
                       "temperature": {"skin": "skin_temp_c", "core": "core_temp_c"}}
    if "spo2" in svgs:
        expected_curves["spo2"] = {"spo2": "spo2_pct"}
        expected_curves["eda"] = {"eda": "eda_us"}
    curves = 0
    for sid, series in expected_curves.items():
        paths = svgs.get(sid, {"paths": []})["paths"]
        for css, column in series.items():
            found = [d for classes, d in paths if css in classes]
            data = times(column)
            if not data:
                if found:
                    fail(name, f"#{sid} draws {css} although the day has no {column}")
                continue
            if len(found) != 1:
                fail(name, f"#{sid}: {len(found)} paths for {css}, expected one")
            moves = found[0].count("M")
            if moves != runs(data, step):
                fail(name, f"#{sid} {css}: {moves} sub-paths, but the data has {runs(data, step)} runs: a line crosses missing data")
            curves += 1
    step_hours = len({int(t // 3600) for t in times("steps")})
    bars = svgs.get("steps", {"rects": {}})["rects"].get("step-hour", 0)
    if bars != step_hours:
        fail(name, f"{bars} step bars, but {step_hours} hours have step data")
    points = json.load(open(o.ieee, encoding="utf-8"))
    main = [pt["body"] for pt in points if pt["header"]["schema_id"]["name"] == "sleep-stage-summary" and pt["body"].get("is_main_sleep")]
    stage_runs = len(main[0]["sleep_stage_episodes"]) if main else 0
    segments = svgs.get("hypnogram", {"rects": {}})["rects"].get("stage-run", 0)
    if segments != stage_runs:
        fail(name, f"{segments} hypnogram segments, but the night has {stage_runs} stage runs")

    # One A4 page.
    pdf = open(o.pdf, "rb").read()
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))
    if pages != 1:
        fail(name, f"the PDF has {pages} pages, expected one A4 page")

    # Not blank: enough ink and colours.
    image = Image.open(o.png).convert("RGB")
    small = image.resize((image.width // 2, image.height // 2))
    raw = small.tobytes()
    pixels = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    ink = sum(1 for px in pixels if px[0] + px[1] + px[2] < 720) / len(pixels)
    colours = len(set(pixels))
    if ink < 0.03 or colours < 16:
        fail(name, f"the screenshot looks blank ({ink:.1%} non-white, {colours} colours)")

    print(f"ok {name} {o.day}: {curves} curves, {bars} step bars, {segments} stage segments, {len(svgs)} titled SVGs, "
          f"1 PDF page, screenshot {image.width}x{image.height} {ink:.0%} ink, {len(urls)} page request(s), all local, no console message")


if __name__ == "__main__":
    main()
