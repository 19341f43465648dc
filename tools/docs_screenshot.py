#!/usr/bin/env python3
"""A screenshot of a docs page around its first chart, by headless Chromium.

    /usr/bin/python3 tools/docs_screenshot.py SITE PAGE OUT.png
    e.g. tools/docs_screenshot.py /tmp/site labs/08-radix-sort.html lab08.png

SITE is what `python3 tools/build_docs.py --out SITE` built (SITE/html/PAGE
is opened). Chromium renders the whole page in a 1280-pixel-wide window as
tall as it needs, and the picture is cropped to the 1200 pixels around the
first line of a chart drawn by tools/charts.py (matplotlib's first colour,
#1f77b4), or to the top of the page when it has none. This is how the issue's
"a lab page rendered in headless Chromium" is made, to be looked at.

Needs chromium (Debian: chromium) and Pillow (python3-pil, which
python3-matplotlib brings).
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTH, HEIGHT, CROP = 1280, 40000, 1200
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


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    site, page, out = Path(argv[0]), argv[1], Path(argv[2])
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
    with tempfile.TemporaryDirectory() as work:
        whole = Path(work) / "whole.png"
        subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={whole}", html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=180)
        image = Image.open(whole).convert("RGB")
        row = first_chart_row(image)
        top = 0 if row is None else max(0, row - CROP // 2)
        image.crop((0, top, WIDTH, min(image.height, top + CROP))).save(out)
    where = "the top of the page" if row is None else f"its first chart (row {row} of the page)"
    print(f"docs_screenshot: {out}: {page} around {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
