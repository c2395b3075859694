"""Checks every rendered bracelet page must pass, whatever it shows (imported by tools/check_study.py):
self-contained (nothing that could load anything), no console message while Chromium rendered it,
no network request in Chromium's net log, and a screenshot that is not blank.

Each check returns None when it passes, else what is wrong (one line)."""
import json
import re

from PIL import Image

# Anything in a page that could make the browser fetch something.
LOADERS = (r"<script", r"\bsrc(set)?=", r"\bhref=", r"url\(", r"@import", r"<(link|iframe|object|embed|img)\b", r"http-equiv")


def self_contained(page):
    for pattern in LOADERS:
        if re.search(pattern, page, re.I):
            return f"the page contains {pattern!r}: it must load nothing"
    # A URL may be text people read (a sink's name), never part of a tag or of the stylesheet.
    styles = "".join(re.findall(r"<style.*?</style>", page, re.S | re.I))
    if re.search(r"<[^>]*https?://", page, re.I) or re.search(r"https?://", styles, re.I):
        return "the page has a URL in a tag or its stylesheet: it must load nothing"
    return None


def console_quiet(logs):
    for log in logs:
        for line in open(log, encoding="utf-8", errors="replace"):
            if "CONSOLE" in line or "Uncaught" in line:
                return f"console message while rendering: {line.strip()}"
    return None


def page_requests(netlog_path):
    """The URLs Chromium's net log shows the page itself requesting (its isolation key is the file's
    origin; Chromium's own background traffic has another key and is not the page's doing)."""
    netlog = json.load(open(netlog_path, encoding="utf-8"))
    start_job = netlog["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = set()
    for event in netlog.get("events", []):
        params = event.get("params") or {}
        if event.get("type") == start_job and str(params.get("network_isolation_key", "")).startswith("file://"):
            urls.add(params.get("url", ""))
    return urls


def network_quiet(urls):
    outside = sorted(u for u in urls if not u.startswith(("file:", "data:", "about:")))
    return f"the page made network requests: {outside[:5]}" if outside else None


def pdf_pages(pdf_path):
    """The page count and the first page's size (points) of a PDF Chromium printed."""
    pdf = open(pdf_path, "rb").read()
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))
    box = re.search(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]", pdf)
    size = (float(box.group(3)) - float(box.group(1)), float(box.group(4)) - float(box.group(2))) if box else None
    return pages, size


def ink(png_path):
    """Share of non-white pixels and distinct colours of a screenshot (at half size)."""
    image = Image.open(png_path).convert("RGB")
    small = image.resize((image.width // 2, image.height // 2))
    raw = small.tobytes()
    pixels = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    share = sum(1 for px in pixels if px[0] + px[1] + px[2] < 720) / len(pixels)
    return share, len(set(pixels)), image.size


def not_blank(png_path, minimum_ink=0.03, minimum_colours=16):
    share, colours, _ = ink(png_path)
    if share < minimum_ink or colours < minimum_colours:
        return f"the screenshot looks blank ({share:.1%} non-white, {colours} colours)"
    return None


def rendered(html_path, netlog_path, logs):
    """The page's text, the URLs it requested, and the first problem of the checks above that every
    rendered page must pass (None when it passes them all)."""
    page = open(html_path, encoding="utf-8").read()
    urls = page_requests(netlog_path)
    return page, urls, self_contained(page) or console_quiet(logs) or network_quiet(urls)
