#!/usr/bin/env python3
"""The per-CPU figures of docs/PERFORMANCE.md, from the benchmark outputs kept beside this script:
draws docs/perf/speedups.svg (the chart), or prints the summary tables with --tables.

    python3 docs/perf/chart.py [--tables] [--out FILE|-]

Each `docs/perf/*.txt` holds the output of `cargo bench --bench vs_leveldb -- block 1M 8M
--isa=all` (and the same with `--key-len=16`, `--heap-keys`) on one CPU: its first line a `# `
title naming the CPU, date and commit, each run headed by a `# cargo bench` line; a row that
several runs measured (the 8M rows, run three times: they swing between runs) counts by its
median. The chart has a row of panels per CPU, one per key shape, and in each a bar per path for
the build, the single query and the batch query of the block, 1M and 8M rows (95% of the queried
keys present, where leveldb's own query is fastest), against a line at 1x: leveldb itself. Plain
Python, no plotting library: the chart is a few rectangles.
"""
import argparse
import glob
import html
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
PATHS = ["portable", "avx2", "avx512"]
COLOURS = {"portable": "#8da0cb", "avx2": "#fc8d62", "avx512": "#66c2a5"}
SHAPES = ["16-24 B", "all 16 B", "16-24 B, each on the heap"]
WORKLOADS = [("2000 filters x 100 keys", "block"), ("1000000 keys", "1M"), ("8000000 keys", "8M")]
OPERATIONS = [("build", "build"), ("query, 95% present", "single"),
              ("batch query, 95% present", "batch")]


def read(path):
    """The file's title and {(shape, path, workload, operation): speedup}, the median of the
    runs that measured it."""
    title, shape, isa, runs = None, SHAPES[0], None, {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("# ") and title is None:
            title = line[2:].strip()
        if line.startswith("# cargo bench"):
            m = re.search(r"--key-len=(\d+)", line)
            shape = f"all {m.group(1)} B" if m else SHAPES[0]
            if "--heap-keys" in line:
                shape = SHAPES[2]
        m = re.match(r"path: (\w+)", line)
        if m:
            isa = m.group(1)
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and cells[4].endswith("x"):
            runs.setdefault((shape, isa, cells[0], cells[1]), []).append(float(cells[4][:-1]))
    return title or os.path.basename(path), {k: statistics.median(v) for k, v in runs.items()}


def tables(cpus):
    """One markdown table per CPU: build / single / batch per path, shape and size."""
    out = []
    for title, rows in cpus:
        out += [f"{title}:", "", "| path | keys | block | 1M | 8M |", "|---|---|---|---|---|"]
        for shape in SHAPES:
            for isa in reversed(PATHS):
                cells = []
                for work, _ in WORKLOADS:
                    values = [rows.get((shape, isa, work, op)) for op, _ in OPERATIONS]
                    cells.append(" / ".join("-" if v is None else
                                            (f"**{v:.2f}**" if v < 1 else f"{v:.2f}")
                                            for v in values))
                if any(c != "- / - / -" for c in cells):
                    out.append(f"| {isa} | {shape} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def panel(x0, y0, width, height, title, rows, shape):
    """One panel's SVG elements: the groups of bars for one CPU and key shape."""
    out = [f'<text x="{x0}" y="{y0 - 8}" font-size="12" font-weight="bold">'
           f'{html.escape(title)}; keys {shape}</text>']
    top = int(max([v for k, v in rows.items() if k[0] == shape] + [2.0])) + 1
    scale = height / top
    for tick in range(0, top + 1):
        y = y0 + height - tick * scale
        out.append(f'<line x1="{x0}" x2="{x0 + width}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="{"#000" if tick == 1 else "#ddd"}" '
                   f'stroke-width="{1.5 if tick == 1 else 0.5}"/>')
        out.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" font-size="10" '
                   f'text-anchor="end">{tick}x</text>')
    groups = [(w, o) for w in WORKLOADS for o in OPERATIONS]
    group_w = width / len(groups)
    bar_w = group_w * 0.8 / len(PATHS)
    for g, ((work, work_label), (op, op_label)) in enumerate(groups):
        gx = x0 + g * group_w + group_w * 0.1
        for p, isa in enumerate(PATHS):
            value = rows.get((shape, isa, work, op))
            if value is None:
                continue
            h = value * scale
            out.append(f'<rect x="{gx + p * bar_w:.1f}" y="{y0 + height - h:.1f}" '
                       f'width="{bar_w - 1:.1f}" height="{h:.1f}" fill="{COLOURS[isa]}">'
                       f'<title>{isa} {work_label} {op_label}: {value:.2f}x</title></rect>')
        out.append(f'<text x="{gx + group_w * 0.4:.1f}" y="{y0 + height + 12}" font-size="9" '
                   f'text-anchor="middle">{op_label}</text>')
        if op_label == "single":
            out.append(f'<text x="{gx + group_w * 0.4:.1f}" y="{y0 + height + 24}" '
                       f'font-size="10" text-anchor="middle" font-weight="bold">{work_label}</text>')
    return out


def chart(cpus):
    """The SVG text: a row of panels per CPU, one per key shape it was measured with."""
    width, height, margin = 420, 160, 50
    total_w = margin + len(SHAPES) * (width + margin)
    total_h = 40 + len(cpus) * (height + 70)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
           f'font-family="sans-serif">', '<rect width="100%" height="100%" fill="white"/>']
    for p, isa in enumerate(PATHS):
        svg.append(f'<rect x="{margin + p * 90}" y="8" width="12" height="12" '
                   f'fill="{COLOURS[isa]}"/>')
        svg.append(f'<text x="{margin + p * 90 + 16}" y="18" font-size="12">{isa}</text>')
    svg.append(f'<text x="{margin + 300}" y="18" font-size="12">speedup over leveldb 1.23, '
               f'95% of the queried keys present (1x: as fast as leveldb)</text>')
    for c, (title, rows) in enumerate(cpus):
        shapes = [s for s in SHAPES if any(k[0] == s for k in rows)]
        for s, shape in enumerate(shapes):
            svg += panel(margin + s * (width + margin), 60 + c * (height + 70), width, height,
                         title.split(",")[0], rows, shape)
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--tables", action="store_true", help="print the tables, draw nothing")
    args.add_argument("--out", default=os.path.join(HERE, "speedups.svg"),
                      help="where to draw the chart (- for stdout)")
    args = args.parse_args()
    cpus = [read(f) for f in sorted(glob.glob(os.path.join(HERE, "*.txt")))]
    if args.tables:
        print(tables(cpus))
        return
    if args.out == "-":
        print(chart(cpus), end="")
        return
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(chart(cpus))


if __name__ == "__main__":
    main()
