#!/usr/bin/env python3
"""analyze --html's report in headless Chromium (issue [11]).

    render_html.py BANKWISE SOURCE_DIR WORK_DIR

Writes the report of samples/transpose_tiled.bw, then
  1. loads a copy of it with a measuring script appended (the report itself
     has none) and dumps the DOM: every figure must be laid out with the
     size its SVG declares, and the page must hold a bank map, a histogram
     and an element grid per shared site;
  2. takes a screenshot and reads the PNG (zlib and a PNG unfilter from the
     standard library): its size must be the window's, and it must show the
     figures' colors (the first wavefront's green, the worst banks' red).
Prints "SKIPPED: no chromium" and exits 0 when neither chromium nor
chromium-browser is on PATH (CTest's SKIP_REGULAR_EXPRESSION). With
BANKWISE_SCREENSHOT set, the screenshot is copied there (docs/).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

WIDTH, HEIGHT = 1280, 1800


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(browser, args, work):
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={work}/profile"]
    res = subprocess.run(base + args, capture_output=True, text=True, timeout=120)
    if res.returncode != 0:
        sys.exit(f"chromium failed ({res.returncode}): {res.stderr[-2000:]}")
    return res.stdout


def png_pixels(path):
    """(width, height, rows of RGB(A) tuples' bytes, bytes per pixel)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = ihdr
    if depth != 8 or color not in (2, 6) or interlace:
        sys.exit(f"{path}: unexpected PNG format (depth {depth}, color {color}, interlace {interlace})")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


MEASURE = """
<pre id="measure"></pre>
<script>
window.addEventListener('load', () => {
  const out = [];
  for (const svg of document.querySelectorAll('svg')) {
    const r = svg.getBoundingClientRect();
    out.push({cls: svg.getAttribute('class'), w: r.width, h: r.height,
              declared_w: Number(svg.getAttribute('width')), declared_h: Number(svg.getAttribute('height')),
              rects: svg.querySelectorAll('rect').length});
  }
  document.getElementById('measure').textContent = JSON.stringify(out);
});
</script>
"""


def main():
    bankwise, source, work = sys.argv[1:4]
    browser = chromium()
    if not browser:
        print("SKIPPED: no chromium")
        return
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "report.html")
    # From the source folder, so that the page names samples/transpose_tiled.bw.
    report = os.path.abspath(report)
    subprocess.run([os.path.abspath(bankwise), "analyze", "samples/transpose_tiled.bw", "-D", "N=256",
                    "--transformed", "--html", report], check=True, stdout=subprocess.DEVNULL, cwd=source)
    html = open(report, encoding="utf-8").read()
    if "<script" in html or re.search(r"(src|href)=\"https?:", html):
        sys.exit("the report must not hold scripts or fetch anything")

    # 1. Layout: every figure has the size its SVG declares.
    measured = os.path.join(work, "measure.html")
    with open(measured, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", MEASURE + "</body>"))
    dom = run_chromium(browser, ["--virtual-time-budget=5000", "--dump-dom", "file://" + measured], work)
    m = re.search(r'<pre id="measure">(.*?)</pre>', dom, re.S)
    if not m or not m.group(1):
        sys.exit("the measuring script left nothing in the DOM")
    figures = json.loads(m.group(1))
    kinds = {}
    for fig in figures:
        kinds[fig["cls"]] = kinds.get(fig["cls"], 0) + 1
        if abs(fig["w"] - fig["declared_w"]) > 1 or abs(fig["h"] - fig["declared_h"]) > 1 or fig["w"] < 100:
            sys.exit(f"figure laid out at {fig['w']} x {fig['h']}, declared {fig['declared_w']} x "
                     f"{fig['declared_h']}: {fig}")
        if fig["rects"] == 0:
            sys.exit(f"an empty figure: {fig}")
    # transpose_tiled: two sites of 'tile' (shared) and two of global arrays.
    if kinds.get("bank-map", 0) < 4 + 3 or kinds.get("histogram", 0) != 4 or kinds.get("element-grid", 0) < 3:
        sys.exit(f"figures missing: {kinds}")
    print(f"figures laid out at their sizes: {kinds}")

    # 2. Pixels: the screenshot has the window's size and the figures' colors.
    shot = os.path.join(work, "report.png")
    run_chromium(browser, [f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", "file://" + report], work)
    width, height, rows, bpp = png_pixels(shot)
    if (width, height) != (WIDTH, HEIGHT):
        sys.exit(f"screenshot is {width} x {height}, expected {WIDTH} x {HEIGHT}")
    colors = {}
    for row in rows[::2]:
        for x in range(0, len(row), bpp * 2):
            px = row[x:x + 3]
            colors[px] = colors.get(px, 0) + 1
    total = sum(colors.values())
    background = max(colors.values())
    green, red = colors.get(bytes((0x4C, 0xAF, 0x50)), 0), colors.get(bytes((0xE5, 0x39, 0x35)), 0)
    print(f"screenshot {width} x {height}: {len(colors)} colors, {100 * (total - background) / total:.1f}% "
          f"not background, {green} first-wavefront green and {red} worst-bank red samples")
    if total - background < total // 20 or green < 50 or red < 20:
        sys.exit("the screenshot does not show the figures")
    if os.environ.get("BANKWISE_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["BANKWISE_SCREENSHOT"])
    print("report renders in chromium")


if __name__ == "__main__":
    main()
