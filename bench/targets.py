"""Issue #6's targets, checked against the rows of one run. Each verdict is met / not met /
n/a (a side was not measured), with the figure that decided it. Pure Python."""

from __future__ import annotations

from results import Figure, Row

LARGE = ("GPT-96", "GPT-384")


def _find(rows: list[Row], model: str, metric_prefix: str) -> Row | None:
    for row in rows:
        if row.model == model and row.metric.startswith(metric_prefix):
            return row
    return None


def _verdict(target: str, model: str, met: bool | None, figure: str) -> dict:
    return {"target": target, "model": model,
            "verdict": "n/a" if met is None else ("met" if met else "NOT met"), "figure": figure}


def _missing(row: Row | None, *sides: str) -> str | None:
    if row is None:
        return "not run"
    for side in sides:
        value = getattr(row, side)
        if not isinstance(value, Figure):
            return f"{side}: {value}"
    return None


def evaluate(rows: list[Row]) -> list[dict]:
    verdicts = []
    limits = {"GPT-96": 1.0, "GPT-384": 5.0}
    for model, limit in limits.items():
        for kind in ("completion", "hover"):
            row = _find(rows, model, f"(d) {kind}")
            target = f"{kind} p99 <= {limit:g} ms"
            why = _missing(row, "opscope")
            if why:
                verdicts.append(_verdict(target, model, None, why))
                continue
            p99 = row.opscope.stats["p99"]
            verdicts.append(_verdict(target, model, p99 <= limit,
                                     f"p99 {p99:.3f} ms (p50 {row.opscope.stats['p50']:.3f} ms)"))
    # coreai-opt's models answer within the same targets (issue 11).
    for model, limit in limits.items():
        for kind, prefix in (("schema key completion", "(d) schema key completion"),
                             ("schema value completion", "(d) schema value completion"),
                             ("schema hover", "(d) schema hover")):
            row = _find(rows, model, prefix)
            target = f"{kind} p99 <= {limit:g} ms"
            why = _missing(row, "opscope")
            if why:
                verdicts.append(_verdict(target, model, None, why))
                continue
            p99 = row.opscope.stats["p99"]
            verdicts.append(_verdict(target, model, p99 <= limit,
                                     f"p99 {p99:.3f} ms (p50 {row.opscope.stats['p50']:.3f} ms)"))
    row = _find(rows, "GPT-384", "(d) schema diagnostics")
    why = _missing(row, "opscope")
    target = "diagnostics of a config with schema errors <= 20 ms (p99)"
    if why:
        verdicts.append(_verdict(target, "GPT-384", None, why))
    else:
        s = row.opscope.stats
        verdicts.append(_verdict(target, "GPT-384", s["p99"] <= 20,
                                 f"p99 {s['p99']:.2f} ms (p50 {s['p50']:.2f} ms)"))
    for row in rows:
        if row.metric.startswith(("(d) completion", "(d) hover")):
            kind = row.metric.split()[1].rstrip(",")
            target = f"{kind} >= 20x faster than yaml-language-server (p99)"
            why = _missing(row, "opscope", "peer")
            if why:
                verdicts.append(_verdict(target, row.model, None, why))
                continue
            ratio = row.ratio
            verdicts.append(_verdict(target, row.model, ratio["p99"] >= 20,
                                     f"p99 {ratio['p99']:.1f}x, p50 {ratio['p50']:.1f}x"))

    row = _find(rows, "GPT-384", "(d) diagnostics")
    why = _missing(row, "opscope")
    target = "diagnostics for 100 patterns <= 20 ms (p99)"
    if why:
        verdicts.append(_verdict(target, "GPT-384", None, why))
    else:
        s = row.opscope.stats
        verdicts.append(_verdict(target, "GPT-384", s["p99"] <= 20,
                                 f"p99 {s['p99']:.2f} ms (p50 {s['p50']:.2f} ms, "
                                 f"{row.opscope.detail.get('kind', '?')})"))

    for model in LARGE:
        row = _find(rows, model, "(b) from .pt2: opscope index (process)")
        target = "opscope index >= 10x faster than ModelInspector(ep.module()) (median)"
        why = _missing(row, "opscope", "peer")
        if why:
            verdicts.append(_verdict(target, model, None, why))
        else:
            ratio = row.ratio["median"]
            parse = row.peer.detail.get("parse_only_median_s")
            verdicts.append(_verdict(
                target, model, ratio >= 10,
                f"{ratio:.2f}x ({row.opscope.stats['median']:.3f} s vs "
                f"{row.peer.stats['median']:.3f} s; peer parse alone {parse:.3f} s)"))

        row = _find(rows, model, "(a) from nn.Module, graph")
        target = "export + index within 1.1x of ModelInspector from nn.Module (median)"
        why = _missing(row, "opscope", "peer")
        if why:
            verdicts.append(_verdict(target, model, None, why))
        else:
            slower = row.opscope.stats["median"] / row.peer.stats["median"]
            verdicts.append(_verdict(
                target, model, slower <= 1.1,
                f"{slower:.2f}x the peer's time ({row.opscope.stats['median']:.1f} s vs "
                f"{row.peer.stats['median']:.1f} s; export {row.opscope.detail['export_median_s']:.1f} s"
                f" + index {row.opscope.detail['index_median_s']:.2f} s)"))

        row = _find(rows, model, "(c) warm start")
        target = "warm start >= 100x faster than re-running ModelInspector (median)"
        why = _missing(row, "opscope", "peer")
        if why:
            verdicts.append(_verdict(target, model, None, why))
        else:
            ratio = row.ratio["median"]
            verdicts.append(_verdict(
                target, model, ratio >= 100,
                f"{ratio:.0f}x ({row.opscope.stats['median'] * 1000:.0f} ms vs "
                f"{row.peer.stats['median']:.1f} s)"))

    row = _find(rows, "GPT-384", "(f) server RSS beyond")
    target = "server RSS for the index < 100 MB beyond the empty footprint"
    why = _missing(row, "opscope")
    if why:
        verdicts.append(_verdict(target, "GPT-384", None, why))
    else:
        delta = row.opscope.stats["VmRSS"]
        verdicts.append(_verdict(target, "GPT-384", delta < 100,
                                 f"+{delta:.1f} MB VmRSS (+{row.opscope.stats['VmHWM']:.1f} MB "
                                 f"VmHWM; empty {row.opscope.detail['empty_VmRSS_MB']:.1f} MB)"))
    return verdicts


def format_verdicts(verdicts: list[dict]) -> str:
    if not verdicts:
        return ""
    width = max(len(v["target"]) for v in verdicts)
    model_width = max(len(v["model"]) for v in verdicts)
    return "\n".join(f"{v['verdict']:8} {v['model'].ljust(model_width)} "
                     f"{v['target'].ljust(width)}  {v['figure']}" for v in verdicts)
