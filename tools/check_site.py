#!/usr/bin/env python3
"""Check the built docs site as a student reads it, in headless Chromium.

    python3 tools/check_site.py SITE [--width 1400] [--page labs/08-radix-sort.html ...] [--json OUT]

SITE is what `python3 tools/build_docs.py --out SITE` built (SITE/html). Every
page (or each --page) is opened in a window WIDTH pixels wide, every fold is
opened (what a student sees after clicking), and the page is measured:

- a page wider than the window (something pushes the whole page sideways);
- tables wider than the content column (they hide columns behind a scrollbar);
- code blocks that scroll sideways, and code blocks whose copy button sits on
  top of characters of the code;
- en or em dashes inside code, and "--option" turned into a dash in the text
  (Sphinx's smart quotes do that to prose; a copied command then breaks);
- the reference walkthrough of a lab page: folded (inside a closed
  <details>), unfolded, or absent (a site built with --student);
- links that go nowhere: href="file:..." (Doxygen turns "file:line" in a
  comment into one), links of a graph to no page, and nodes of the lab map
  (a ready lab's) that are no link at all.

It prints one line per page and the totals, and exits 1 when a table is too
wide (or a whole page), a code block scrolls or is covered, a dash is in code or a command, a
walkthrough is unfolded or a link is bogus; 0 when the site is clean.

How: each page is copied with a small script appended that measures the
laid-out page and writes the numbers into the page, and Chromium's
--dump-dom prints that page back (no browser driver needed). Needs chromium
(Debian: sudo apt-get install chromium).
"""
import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RESULT_ID = "workbook-site-check"

# Runs in the page once it has loaded (and sphinx-copybutton has added its
# buttons), writes a JSON summary into <pre id=RESULT_ID>.
MEASURE = r"""
<script>
window.addEventListener("load", () => setTimeout(() => {
  const out = {};
  const article = document.querySelector('article[role="main"]') || document.body;
  const column = article.getBoundingClientRect();
  out.column = Math.round(column.width);
  out.height = document.documentElement.scrollHeight;  // with every fold closed
  out.page_overflow = Math.max(0, document.documentElement.scrollWidth - window.innerWidth);
  const near = (el) => {  // the nearest heading above an element, to say where it is
    let e = el;
    while (e && e !== article) {
      let s = e.previousElementSibling;
      while (s) {
        if (/^H[1-6]$/.test(s.tagName)) return s.textContent.replace("#", "").trim();
        s = s.previousElementSibling;
      }
      e = e.parentElement;
    }
    return "";
  };

  // The walkthrough, before any fold is opened.
  const mark = document.querySelector('[id$="-walkthrough"]');
  out.walkthrough = "none";  // a page that is not a lab page
  if (mark) {
    const section = mark.closest("section");
    const code = [...section.querySelectorAll("pre, h3")];
    const folded = (el) => { const d = el.closest("details"); return d && section.contains(d) && !d.open; };
    if (code.length === 0) out.walkthrough = "absent";
    else out.walkthrough = code.every(folded) ? "folded" : "UNFOLDED";
  }

  // Open every fold: a student opens them, and what they hold must fit too.
  document.querySelectorAll("details").forEach((d) => { d.open = true; });

  out.page_overflow = Math.max(out.page_overflow, document.documentElement.scrollWidth - window.innerWidth);
  out.tables = [];
  for (const t of article.querySelectorAll("table")) {
    const box = t.getBoundingClientRect();
    const width = Math.max(t.scrollWidth, Math.round(box.width));
    if (t.scrollWidth > t.clientWidth + 1 || box.right > column.right + 1)
      out.tables.push({where: near(t), width: width, column: out.column});
  }

  out.table_count = article.querySelectorAll("table").length;
  out.code = 0; out.scrolling = []; out.covered = []; out.wrapped = 0; out.wrapped_where = [];
  for (const pre of article.querySelectorAll("div.highlight > pre, pre.literal-block")) {
    out.code += 1;
    const first = pre.textContent.split("\n").find((l) => l.trim()) || "";
    if (pre.scrollWidth > pre.clientWidth + 1)
      out.scrolling.push({where: near(pre.closest("div[class^='highlight']") || pre),
                          over: pre.scrollWidth - pre.clientWidth, first: first.slice(0, 60)});
    else if (getComputedStyle(pre).whiteSpace !== "pre") {
      // Fits because long lines wrap? Lay it out unwrapped for a moment to count it.
      const before = pre.style.whiteSpace;
      pre.style.whiteSpace = "pre";
      if (pre.scrollWidth > pre.clientWidth + 1) {
        out.wrapped += 1;
        out.wrapped_where.push({where: near(pre.closest("div[class^='highlight']") || pre), first: first.slice(0, 60)});
      }
      pre.style.whiteSpace = before;
    }
    const button = pre.parentElement.querySelector("button.copybtn");
    if (!button) continue;
    const b = button.getBoundingClientRect();
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let hit = null;
    for (let node = walker.nextNode(); node && !hit; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const overlaps = [...range.getClientRects()].some((r) =>
          r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom);
      if (!overlaps) continue;
      for (let i = 0; i < node.length && !hit; i++) {  // the characters themselves
        if (/\s/.test(node.data[i])) continue;
        range.setStart(node, i); range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        if (r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom) hit = node.data[i];
      }
    }
    if (hit) out.covered.push({where: near(pre.closest("div[class^='highlight']") || pre), first: first.slice(0, 60)});
  }

  out.dash_in_code = [];
  for (const c of article.querySelectorAll("code, pre, kbd, samp")) {
    const m = c.textContent.match(/.{0,20}[\u2013\u2014].{0,20}/);
    if (m && !c.querySelector("code, pre")) out.dash_in_code.push(m[0]);
  }
  // "--all" smart-quoted into "–all": a dash right before a letter, after a space.
  out.dash_options = (article.innerText.match(/(^|[\s(])[\u2013\u2014][A-Za-z][\w-]*/g) || []).map((s) => s.trim());
  out.file_links = [...document.querySelectorAll('a[href^="file:"]')].map((a) => a.getAttribute("href"));
  out.graphs = [...document.querySelectorAll("div.graphviz object, div.graphviz img")]
      .map((o) => o.getAttribute("data") || o.getAttribute("src"));

  const pre = document.createElement("pre");
  pre.id = "RESULT_ID";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 300));
</script>
""".replace("RESULT_ID", RESULT_ID)


def browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def measure(chromium, page, width):
    """Lay out one (copied, instrumented) page and return what MEASURE found."""
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    # --virtual-time-budget lets the page's scripts and the timeout above run before the dump.
    result = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                             f"--window-size={width},1000", "--virtual-time-budget=10000",
                             "--dump-dom", page.resolve().as_uri()],
                            capture_output=True, text=True, timeout=180)
    found = re.search(rf'<pre id="{RESULT_ID}">(.*?)</pre>', result.stdout, re.S)
    if not found:
        raise RuntimeError(f"{page.name}: Chromium printed no measurements ({result.stderr.strip()[-300:]})")
    return json.loads(html.unescape(found.group(1)))


def graph_links(html_dir, page_rel, graphs):
    """The links of the graphs a page shows: (links, dead links, lab-map nodes
    of a ready lab without a link). The lab map's nodes are titled l01, l02, ...
    and a ready lab's node is green (docs/_ext/workbook_docs.py, map_fragment)."""
    linked, dead, unlinked = 0, [], 0
    for src in graphs:
        svg = (html_dir / page_rel).parent / src
        if svg.suffix != ".svg" or not svg.exists():
            continue
        text = svg.read_text(encoding="utf-8")
        for href in re.findall(r'xlink:href="([^"#]*)(?:#[^"]*)?"', text):
            # The SVG is shown in an <object>: its links are relative to the SVG, in _images/.
            target = (svg.parent / html.unescape(href)).resolve()
            linked += 1
            if not target.exists():
                dead.append(href)
        for node in text.split('<g id="node')[1:]:
            if re.search(r"<title>l\d\d</title>", node) and 'fill="#d8ecd0"' in node and "xlink:href" not in node:
                unlinked += 1
    return linked, dead, unlinked


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", help="the --out folder of tools/build_docs.py (its html/ is checked)")
    parser.add_argument("--width", type=int, default=1400, help="window width in pixels (default 1400)")
    parser.add_argument("--page", action="append", default=[],
                        help="a page under html/, e.g. labs/08-radix-sort.html (default: every page)")
    parser.add_argument("--json", help="also write every measurement to this file")
    parser.add_argument("--skip-if-missing", action="store_true",
                        help="exit 77 (ctest's skipped) when there is no site or no Chromium, instead of 1")
    args = parser.parse_args(argv)
    missing = 77 if args.skip_if_missing else 1

    source = Path(args.site) / "html"
    if not (source / "index.html").exists():
        print(f"check_site: {source}/index.html does not exist: build the site with "
              f"python3 tools/build_docs.py --out {args.site}", file=sys.stderr)
        return missing
    chromium = browser()
    if chromium is None:
        print("check_site: no Chromium here, so the site was not checked in a browser: "
              "sudo apt-get install chromium", file=sys.stderr)
        return missing

    pages = args.page or sorted(p.relative_to(source).as_posix() for p in source.rglob("*.html")
                                if p.name not in ("genindex.html", "search.html"))
    results = {}
    with tempfile.TemporaryDirectory() as work:
        # A copy, so that the instrumented pages never end up in the site.
        copy = Path(work) / "html"
        shutil.copytree(source, copy)
        for rel in pages:
            results[rel] = measure(chromium, copy / rel, args.width)
            r = results[rel]
            r["graph_links"], r["dead_graph_links"], r["unlinked_lab_nodes"] = graph_links(copy, rel, r["graphs"])

    totals = {"pages wider than the window": 0, "wide tables": 0, "tables": 0,
              "scrolling code (lab pages)": 0, "code blocks (lab pages)": 0, "scrolling code (other pages)": 0,
              "code blocks with wrapped lines": 0, "covered by the copy button": 0, "dashes in code": 0,
              "options as dashes": 0, "unfolded walkthroughs": 0, "file: links": 0, "dead graph links": 0,
              "lab-map nodes without a link": 0}
    print(f"check_site: {len(pages)} pages of {source} at {args.width} px")
    for rel, r in results.items():
        lab = rel.startswith("labs/") and rel != "labs/index.html"
        if lab and r["walkthrough"] == "none":
            r["walkthrough"] = "absent"  # a lab page without the section: a site for students
        totals["pages wider than the window"] += r["page_overflow"] > 0
        totals["wide tables"] += len(r["tables"])
        totals["tables"] += r["table_count"]
        totals["code blocks with wrapped lines"] += r["wrapped"]
        totals["scrolling code (lab pages)" if lab else "scrolling code (other pages)"] += len(r["scrolling"])
        if lab:
            totals["code blocks (lab pages)"] += r["code"]
        totals["covered by the copy button"] += len(r["covered"])
        totals["dashes in code"] += len(r["dash_in_code"])
        totals["options as dashes"] += len(r["dash_options"])
        totals["unfolded walkthroughs"] += r["walkthrough"] == "UNFOLDED"
        totals["file: links"] += len(r["file_links"])
        totals["dead graph links"] += len(r["dead_graph_links"])
        totals["lab-map nodes without a link"] += r["unlinked_lab_nodes"]
        line = (f"  {rel}: column {r['column']} px, page {r['height']} px tall; "
                f"tables too wide {len(r['tables'])} of {r['table_count']}; code blocks scrolling "
                f"{len(r['scrolling'])} of {r['code']} (wrapped {r['wrapped']}), "
                f"covered by the copy button {len(r['covered'])}; dashes in code {len(r['dash_in_code'])}, "
                f"options as dashes {len(r['dash_options'])}; walkthrough {r['walkthrough']}")
        if r["page_overflow"]:
            line += f"; PAGE {r['page_overflow']} px WIDER THAN THE WINDOW"
        if r["file_links"]:
            line += f"; file: links {len(r['file_links'])}"
        if r["graphs"]:
            line += (f"; graph links {r['graph_links']}, dead {len(r['dead_graph_links'])}, "
                     f"lab-map nodes without a link {r['unlinked_lab_nodes']}")
        print(line)
        for t in r["tables"]:
            print(f"      table too wide under \"{t['where']}\": {t['width']} px in {t['column']}")
        for c in r["scrolling"]:
            print(f"      code scrolls by {c['over']} px under \"{c['where']}\": {c['first']}")
        for c in r["wrapped_where"]:
            print(f"      code wraps (lines longer than the column) under \"{c['where']}\": {c['first']}")
        for c in r["covered"]:
            print(f"      copy button covers code under \"{c['where']}\": {c['first']}")
        for d in r["dash_in_code"] + r["dash_options"]:
            print(f"      dash: {d!r}")
        for href in r["dead_graph_links"]:
            print(f"      dead graph link: {href}")
    print("check_site: totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"width": args.width, "pages": results, "totals": totals}, indent=1))
    # Wrapped lines are how code fits (workbook.css); counted, not a failure.
    bad = sum(v for k, v in totals.items()
              if k not in ("tables", "code blocks (lab pages)", "code blocks with wrapped lines"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
