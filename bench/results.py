"""Result rows, the printed table and the JSON file. Pure Python.

A row compares one quantity for one model: opscope's figures and a peer's, each a pair of
statistics (min/median for durations over repeated runs, p50/p99 for editor latencies,
peak/median for memory), and the ratio peer / opscope (above 1: opscope is faster or
smaller). A side that could not be measured holds a reason instead: "n/a (not built)",
"error: ...".
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from measure import Sample


@dataclass
class Figure:
    """Two statistics of one side, e.g. {"min": 0.12, "median": 0.13}, in `unit`."""

    stats: dict[str, float]
    runs: int
    detail: dict = field(default_factory=dict)

    @classmethod
    def timing(cls, sample: Sample, **detail) -> "Figure":
        return cls({"min": sample.min, "median": sample.median}, len(sample.values), detail)

    @classmethod
    def latency(cls, sample: Sample, **detail) -> "Figure":
        return cls({"p50": sample.percentile(50), "p99": sample.percentile(99)},
                   len(sample.values), detail)


@dataclass
class Row:
    model: str
    size: dict
    metric: str
    unit: str  # "s", "ms", "MB"
    opscope: Figure | str
    peer_name: str = ""
    peer: Figure | str | None = None
    note: str = ""

    @property
    def ratio(self) -> dict[str, float] | None:
        """peer / opscope per statistic, both measured in this run."""
        if not isinstance(self.opscope, Figure) or not isinstance(self.peer, Figure):
            return None
        ratios = {}
        for name, value in self.opscope.stats.items():
            other = self.peer.stats.get(name)
            if other is not None and value > 0:
                ratios[name] = other / value
        return ratios or None

    def to_json(self) -> dict:
        data = asdict(self)
        data["ratio"] = self.ratio
        return data


def _fmt(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    if unit == "ms":
        return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"
    return f"{value:.1f}"


def _cell(side: Figure | str | None, unit: str) -> str:
    if side is None:
        return "-"
    if isinstance(side, str):
        return side
    names = "/".join(side.stats)
    values = " / ".join(_fmt(v, unit) for v in side.stats.values())
    return f"{values} {unit} ({names})"


def _ratio_cell(row: Row) -> str:
    ratio = row.ratio
    if not ratio:
        return "-"
    return " / ".join(f"{v:.2f}x" if v < 10 else f"{v:.0f}x" for v in ratio.values())


def _size(size: dict) -> str:
    if not size:
        return "-"
    return f"{size.get('modules', '?')}m {size.get('ops', '?')}op {size.get('graph_nodes', '?')}n"


def format_table(rows: list[Row]) -> str:
    header = ["model", "size (modules, ops, nodes)", "metric", "opscope", "peer", "peer figure",
              "ratio peer/opscope"]
    body = [[r.model, _size(r.size), r.metric, _cell(r.opscope, r.unit), r.peer_name or "-",
             _cell(r.peer, r.unit), _ratio_cell(r)] for r in rows]
    widths = [max(len(line[i]) for line in [header] + body) for i in range(len(header))]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(c.ljust(w) for c, w in zip(line, widths)) for line in body]
    return "\n".join(lines)


def format_markdown(rows: list[Row]) -> str:
    header = "| model | size (modules / ops / graph nodes) | metric | opscope | peer | peer figure | ratio (peer/opscope) |"
    lines = [header, "|" + "---|" * 7]
    for r in rows:
        size = (f"{r.size.get('modules', '?')} / {r.size.get('ops', '?')} / "
                f"{r.size.get('graph_nodes', '?')}") if r.size else "-"
        cells = [r.model, size, r.metric, _cell(r.opscope, r.unit), r.peer_name or "-",
                 _cell(r.peer, r.unit), _ratio_cell(r)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def write_json(path: str, rows: list[Row], targets: list[dict], context: dict) -> None:
    with open(path, "w") as out:
        json.dump({"context": context, "rows": [r.to_json() for r in rows], "targets": targets},
                  out, indent=1)
