#!/usr/bin/env python3
"""A screenshot of a docs page around its first chart, by headless Chromium.

    /usr/bin/python3 tools/docs_screenshot.py SITE PAGE OUT.png [--width W] [--at ID]
    e.g. tools/docs_screenshot.py /tmp/site labs/08-radix-sort.html lab08.png
         tools/docs_screenshot.py /tmp/site labs/09-histograms.html rubric.png --width 1400 \
             --at lab-09-histograms-rubric

SITE is what `python3 tools/build_docs.py --out SITE` built (SITE/html/PAGE
is opened). Chromium renders the whole page in a 1280-pixel-wide window (or
W) as tall as it needs, and the picture is cropped to the 1200 pixels around
the first line of a chart drawn by tools/charts.py (matplotlib's first colour,
#1f77b4), or to the top of the page when it has none. This is how the issue's
"a lab page rendered in headless Chromium" is made, to be looked at. --at ID
crops from the element with that id instead (a heading's anchor, e.g. a lab's
rubric); the numbers behind such a picture come from tools/check_site.py.

Needs chromium (Debian: chromium) and Pillow (python3-pil, which
python3-matplotlib brings).
"""
import argparse
import html as html_text
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTH, HEIGHT, CROP = 1280, 40000, 1200
# Appended to a copy of the page for --at: writes the element's top, in page
# pixels, into the page, which Chromium's --dump-dom prints.
WHERE = """<script>window.addEventListener("load", () => setTimeout(() => {
  const e = document.getElementById(%s);
  const p = document.createElement("pre"); p.id = "workbook-at";
  p.textContent = e ? String(Math.round(e.getBoundingClientRect().top + window.scrollY)) : "none";
  document.body.appendChild(p);
}, 300));</script>"""
CHART_BLUE = (31, 119, 180)  # matplotlib's "C0", the first series of every chart


def first_chart_row(image):
    """The first pixel row that holds the chart colour, or None."""
    pixels = image.load()
    for y in range(0, image.height, 4):
        for x in range(0, image.width, 3):
            r, g, b = pixels[x, y][:3]
            if abs(r - CHART_BLUE[0]) < 12 and abs(g - CHART_BLUE[1]) < 12 and abs(b - CHART_BLUE[2]) < 12:
                return y
    return None


def element_top(browser, html, element_id, width):
    """Where the element with this id starts on the page laid out at this width, or None."""
    # The instrumented copy sits beside the page, so that its styles and
    # scripts load; it is removed at once.
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=html.parent, prefix=".docs_screenshot_",
                                     suffix=".html", delete=False) as probe:
        probe.write(html.read_text(encoding="utf-8").replace(
            "</body>", WHERE % json.dumps(element_id) + "</body>"))
    try:
        result = subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                 f"--window-size={width},{HEIGHT}", "--virtual-time-budget=10000",
                                 "--dump-dom", Path(probe.name).resolve().as_uri()],
                                capture_output=True, text=True, timeout=180)
    finally:
        Path(probe.name).unlink()
    found = re.search(r'<pre id="workbook-at">(\d+)</pre>', html_text.unescape(result.stdout))
    return int(found.group(1)) if found else None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site")
    parser.add_argument("page")
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=WIDTH, help=f"window width in pixels (default {WIDTH})")
    parser.add_argument("--at", help="crop from the element with this id (e.g. lab-09-histograms-rubric)")
    args = parser.parse_args(argv)
    site, page, out = Path(args.site), args.page, Path(args.out)
    html = site / "html" / page
    if not html.exists():
        print(f"docs_screenshot: {html} does not exist: build the site with "
              f"python3 tools/build_docs.py --out {site}", file=sys.stderr)
        return 1
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("docs_screenshot: no Chromium here: sudo apt-get install chromium", file=sys.stderr)
        return 1
    try:
        from PIL import Image
    except ImportError:
        print("docs_screenshot: Pillow is missing: sudo apt-get install python3-pil (run with /usr/bin/python3)",
              file=sys.stderr)
        return 1
    at = None
    if args.at:
        at = element_top(browser, html, args.at, args.width)
        if at is None:
            print(f"docs_screenshot: {page} has no element with id {args.at!r}", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory() as work:
        whole = Path(work) / "whole.png"
        subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={args.width},{HEIGHT}", f"--screenshot={whole}", html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=180)
        image = Image.open(whole).convert("RGB")
        row = first_chart_row(image) if at is None else None
        if at is not None:
            top = max(0, at - 40)
        else:
            top = 0 if row is None else max(0, row - CROP // 2)
        image.crop((0, top, args.width, min(image.height, top + CROP))).save(out)
    if at is not None:
        where = f"#{args.at} (row {at} of the page)"
    else:
        where = "the top of the page" if row is None else f"its first chart (row {row} of the page)"
    print(f"docs_screenshot: {out}: {page} at {args.width} px around {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
