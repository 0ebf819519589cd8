"""make check-report: the report as a reader sees it, in headless Chromium at 1400 px.

Usage: check_report.py [--screenshots DIR] REPORT.html [REPORT.html ...]

For each report, on the rendered page (every <details> opened for the layout checks):
  images   every <img> loaded (complete, naturalWidth > 0)
  width    the page and every table fit in the window: no table wider than the page and
           no box that hides columns behind a horizontal scroll
  words    no name (letters, digits, '_' and '.', at most 32 of them) in a table cell
           broken across lines: a type name wrapped letter by letter
  nan/inf  no raw nan or inf in the page's text (the report writes "not reached" or "—")
  series   every figure's SVG twin (gnuplot's, beside the PNG) draws at least one series
           (a gnuplot_plot group with a line or a point outside the key) and has no empty
           panel (analysis/plots/common.gp's nodata() frame, labelled "no data:")
With --screenshots, one PNG per experiment section (its <h2> to the next), with the
<details> closed as a reader first sees them, into DIR/<experiment>.png.
Prints one line per defect; exit status 1 when any report has one, 2 on bad usage.
"""
import base64
import os
import re
import sys
import xml.etree.ElementTree as ET

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WIDTH = 1400
SHORT_WORD = 32
RAW_NUMBER = re.compile(r"(?<![\w.])[-+]?(nan|inf|infinity)(?![\w])", re.IGNORECASE)

# The page's own measurements, returned as JSON-able lists (one string per defect).
LAYOUT_JS = """
const out = [], page = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth > page + 1)
  out.push('width: the page scrolls sideways (' + document.documentElement.scrollWidth +
           ' px wide in a ' + page + ' px window)');
const hs = Array.from(document.querySelectorAll('h2'));
const where = el => { let w = 'top of the page';
  for (const h of hs) if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)
    w = h.textContent.trim();
  return w; };
document.querySelectorAll('table').forEach(t => {
  const r = t.getBoundingClientRect();
  if (r.right > page + 1)
    out.push('width: a table in "' + where(t) + '" is ' + Math.round(r.width) +
             ' px wide and ends at ' + Math.round(r.right) + ' px (window ' + page + ')');
});
document.querySelectorAll('*').forEach(el => {
  const cs = getComputedStyle(el);
  if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1)
    out.push('width: a box in "' + where(el) + '" hides ' + (el.scrollWidth - el.clientWidth) +
             ' px behind a horizontal scroll');
});
document.querySelectorAll('td, th').forEach(cell => {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const re = /[A-Za-z0-9_.]+/g; let m; // a name: a break at a hyphen or a space is fine
    while ((m = re.exec(n.data))) {
      if (m[0].length > %d || m[0].length < 2) continue;
      const range = document.createRange();
      range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(q => q.width > 0)
                                .map(q => Math.round(q.top)));
      if (tops.size > 1)
        out.push('words: "' + m[0] + '" broken over ' + tops.size + ' lines in "' + where(cell) + '"');
    }
  }
});
return out;
""" % SHORT_WORD

IMAGES_JS = """
return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)
            .map(i => i.getAttribute('src'));
"""

SECTIONS_JS = """
const hs = Array.from(document.querySelectorAll('h2[id]')), end = document.body.scrollHeight;
return hs.map((h, k) => { const top = h.getBoundingClientRect().top + window.scrollY;
  const next = k + 1 < hs.length ? hs[k + 1].getBoundingClientRect().top + window.scrollY : end;
  return [h.id, Math.floor(top) - 4, Math.ceil(next - top)]; });
"""


def tag(e):
    return e.tag.rsplit("}", 1)[-1]


def svg_empty_panels(path):
    """The labels of analysis/plots/common.gp's nodata() frames in an SVG: empty panels."""
    texts = ("".join(e.itertext()).strip() for e in ET.parse(path).getroot().iter()
             if tag(e) == "text")
    return [t for t in texts if t.startswith("no data:")]


def svg_series(path):
    """Number of gnuplot series in an SVG with at least one drawn vertex outside the key."""
    drawn = set()
    for g in ET.parse(path).getroot().iter():
        gid = g.get("id", "")
        if tag(g) != "g" or not gid.startswith("gnuplot_plot_"):
            continue
        # the key's entries: a text at translate(x,y), its sample drawn beside it
        anchors = []
        for e in g.iter():
            m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", e.get("transform", ""))
            if m and any(tag(t) == "text" for t in e.iter()):
                anchors.append((float(m.group(1)), float(m.group(2))))
        in_key = lambda x, y: any(abs(y - ay) < 10 and abs(x - ax) < 150 for ax, ay in anchors)
        for e in g.iter():
            pts = []
            if tag(e) == "path":
                pts = [(float(a), float(b)) for a, b in
                       re.findall(r"[ML]\s*([-\d.]+),([-\d.]+)", e.get("d", ""))]
                if len(pts) < 2:
                    continue
            elif tag(e) == "use" and "gpPt" in e.get("{http://www.w3.org/1999/xlink}href", ""):
                m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", e.get("transform", ""))
                if m:
                    pts = [(float(m.group(1)), float(m.group(2)))]
                else:
                    pts = [(float(e.get("x", "nan")), float(e.get("y", "nan")))]
            if any(not in_key(x, y) for x, y in pts):
                drawn.add(gid)
                break
    return len(drawn)


def check(driver, report, shots):
    defects = []
    url = "file://" + os.path.abspath(report)
    driver.get(url)
    base = os.path.dirname(os.path.abspath(report))
    defects += ["images: %s does not load" % s for s in driver.execute_script(IMAGES_JS)]
    if shots:
        os.makedirs(shots, exist_ok=True)
        for name, top, height in driver.execute_script(SECTIONS_JS):
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": max(top, 0), "width": WIDTH, "height": max(height, 1),
                         "scale": 1}})
            with open(os.path.join(shots, name + ".png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
    driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    defects += driver.execute_script(LAYOUT_JS)
    text = driver.execute_script("return document.body.innerText")
    for line in text.splitlines():
        for m in RAW_NUMBER.finditer(line):
            defects.append("nan/inf: raw %r in: %s" % (m.group(0), line.strip()[:160]))
    for href in driver.execute_script(
            "return Array.from(document.querySelectorAll('figure a')).map(a => a.getAttribute('href'))"
            ".filter(h => h.endsWith('.svg'))"):
        svg = os.path.join(base, href)
        try:
            n, empty = svg_series(svg), svg_empty_panels(svg)
        except (OSError, ET.ParseError) as err:
            defects.append("series: %s cannot be read (%s)" % (href, err))
            continue
        if n == 0:
            defects.append("series: %s draws no series (its data are empty)" % href)
        defects += ["series: %s has an empty panel (%s)" % (href, t) for t in empty]
    return defects


def main(argv):
    shots = None
    if len(argv) > 2 and argv[1] == "--screenshots":
        shots, argv = argv[2], argv[2:]
    reports = argv[1:]
    if not reports:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", "--window-size=%d,1000" % WIDTH,
              "--allow-file-access-from-files"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    status = 0
    try:
        for report in reports:
            if not os.path.isfile(report):
                print("check-report: %s: expected a report.html, found no such file" % report)
                status = 1
                continue
            defects = check(driver, report, shots)
            for d in defects:
                print("check-report: %s: %s" % (report, d))
            print("check-report: %s: %s" % (report, "%d defect(s)" % len(defects) if defects
                                             else "images, widths, words, nan/inf, series: ok"))
            status |= 1 if defects else 0
    finally:
        driver.quit()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
