#!/usr/bin/env python3
"""Draws docs/fpr.svg: the false-positive rate of leveldb's bloom filters (this library's, which
are leveldb's byte for byte) measured by `leveldb-bloom fpr`, beside a bloom filter's in theory,
for 1 to 20 bits per key. Python's standard library only.

    python3 tools/fpr_chart.py PATH/TO/leveldb-bloom [OUT.svg]
"""
import math
import subprocess
import sys

BITS = "1-20"
KEYS = 10000


def measure(tool):
    """Rows of (bits per key, probes, measured, theory) from the tool's table."""
    out = subprocess.run(
        [tool, "fpr", "--bits-per-key", BITS, "--keys", str(KEYS)],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = []
    for line in out.splitlines()[1:]:
        bits, probes, _keys, _bytes, measured, theory, _ratio = line.split()
        rows.append((int(bits), int(probes), float(measured.rstrip("%")) / 100,
                     float(theory.rstrip("%")) / 100))
    return rows


def svg(rows):
    """The chart: rates on a log scale against bits per key."""
    width, height, left, right, top, bottom = 640, 400, 70, 20, 40, 50
    xs = [r[0] for r in rows]
    lo = math.floor(math.log10(min(min(r[2] for r in rows if r[2] > 0), min(r[3] for r in rows))))
    x = lambda b: left + (b - xs[0]) / (xs[-1] - xs[0]) * (width - left - right)
    y = lambda p: top + (0 - math.log10(max(p, 10 ** lo))) / (0 - lo) * (height - top - bottom)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">leveldb\'s bloom '
        f'filter, {KEYS} keys: false-positive rate</text>',
    ]
    for e in range(lo, 1):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(10 ** e)}" '
                     f'y2="{y(10 ** e)}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(10 ** e) + 4}" text-anchor="end">'
                     f'{100 * 10 ** e:g}%</text>')
    for b in xs:
        parts.append(f'<text x="{x(b)}" y="{height - bottom + 16}" text-anchor="middle">{b}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 10}" '
                 'text-anchor="middle">bits per key</text>')
    for index, color, name in ((2, "#c0392b", "measured (1,000,000 absent keys)"),
                               (3, "#2c3e50", "theory, (1 - e^(-kn/m))^k")):
        points = " ".join(f"{x(r[0]):.1f},{y(r[index]):.1f}" for r in rows)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        legend_y = top + 16 * (index - 1)
        parts.append(f'<line x1="{width - 260}" x2="{width - 235}" y1="{legend_y}" '
                     f'y2="{legend_y}" stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{width - 228}" y="{legend_y + 4}">{name}</text>')
    parts.append("</svg>\n")
    return "\n".join(parts)


def main():
    tool = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "docs/fpr.svg"
    with open(out, "w", encoding="utf-8") as f:
        f.write(svg(measure(tool)))


if __name__ == "__main__":
    main()
