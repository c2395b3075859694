#!/usr/bin/env python3
"""Checks one rendered `bracelet report` page (see tools/render-report.sh).

Also: every colour drawn has a legend swatch, every value axis has round ticks (1, 2 or 5 x 10^n)
and a unit, and the week table is there by default.

Expected counts come from the exports of the same day (slots CSV, IEEE 1752 sleep-stage summary),
not from the report's own code: one curve path per series with data, as many sub-paths as the data
has runs (never a line through missing data), one bar per hour with steps, one segment per stage run.
"""
import argparse
import csv
import json
import math
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
        # id -> {"title": bool, "paths": [d], "rects": {class: n}, "ticks": [text], "units": [text]}
        self.svgs = {}
        self.in_title = False
        self.text_class = None  # "tick" or "unit" while inside such a <text>
        self.swatches = set()  # the classes of every legend swatch (<i class="sw ...">), "sw" left out
        self.headings = []
        self.in_h2 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "i" and "sw" in classes:
            self.swatches.add(" ".join(c for c in classes if c != "sw"))
        elif tag == "h2":
            self.in_h2 = True
            self.headings.append("")
        if tag == "svg":
            self.svg = a.get("id", f"svg{len(self.svgs)}")
            self.svgs[self.svg] = {"title": False, "paths": [], "rects": {}, "ticks": [], "units": []}
        elif self.svg and tag == "text" and ("tick" in classes or "unit" in classes):
            self.text_class = "tick" if "tick" in classes else "unit"
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
        if self.text_class and data.strip():
            self.svgs[self.svg][self.text_class + "s"].append(data.strip())
        if self.in_h2:
            self.headings[-1] += data

    def handle_endtag(self, tag):
        if tag == "text":
            self.text_class = None
        elif tag == "h2":
            self.in_h2 = False
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
    p.add_argument("--expect-week", action="store_true", help="the report must hold the week table")
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

    # A legend for every colour drawn: each class that colours an area (zone bands and bars, the
    # not-worn span, sleep stages, step bars) or a curve has a swatch of the same class.
    area_classes = {"z0", "z1", "z2", "z3", "z4", "z5", "gap", "s1", "s2", "s3", "s4", "step-hour"}
    drawn = set()
    for sid, svg in svgs.items():
        drawn |= {c for c in svg["rects"] if c in area_classes}
        drawn |= {"line " + c for classes, _ in svg["paths"] for c in classes if c != "curve"}
    unexplained = sorted(drawn - parser.swatches)
    if unexplained:
        fail(name, f"colours drawn without a legend entry: {unexplained}")

    # Round ticks and a unit on every value axis: evenly spaced labels whose step is 1, 2 or 5 x 10^n.
    axes = 0
    for sid, svg in svgs.items():
        if not svg["ticks"]:
            continue
        values = [float(t) for t in svg["ticks"]]
        steps = {round(b - a, 6) for a, b in zip(values, values[1:])}
        if len(steps) != 1:
            fail(name, f"#{sid}: tick labels {svg['ticks']} are not evenly spaced")
        step = steps.pop()
        mantissa = round(step / 10 ** math.floor(math.log10(step)), 6)
        if mantissa not in (1, 2, 5):
            fail(name, f"#{sid}: tick step {step} is not 1, 2 or 5 x 10^n ({svg['ticks']})")
        if not svg["units"]:
            fail(name, f"#{sid}: the value axis has no unit")
        axes += 1
    if o.expect_week and "Week" not in [h.strip() for h in parser.headings]:
        fail(name, "no week table, although the database holds more than one day and --days was not given")

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
          f"{len(drawn)} colours each in a legend, {axes} value axes with round ticks and a unit, "
          f"1 PDF page, screenshot {image.width}x{image.height} {ink:.0%} ink, {len(urls)} page request(s), all local, no console message")


if __name__ == "__main__":
    main()
