"""A search's answer in words: what `chainc solve --question` prints and the derivation sheet typesets.

Plain text in display units, names as the model writes them; the CLI prints it and the LaTeX
backend escapes it as prose, so the terminal and the sheet say the same thing in the same words.
Everything is read from a chosen.Chosen (the Report's): nothing here solves.
"""

from __future__ import annotations

from dataclasses import dataclass

from .chosen import Chosen
from .format import fmt
from .numbers import in_unit

LISTED = 8  # an axis of more values lists its first three, an ellipsis and its last


@dataclass(frozen=True)
class Failure:
    """What keeps configurations out: one condition (or an inner question without an answer, or 'no value')."""

    label: str
    count: int
    example: int  # the first row it keeps out
    reason: str  # that row's numbers, without the label in front


def seek_word(seek: str) -> str:
    return "lowest" if seek == "min" else "highest"


def better(seek: str) -> str:
    return "lower is better" if seek == "min" else "higher is better"


def joined(names) -> str:
    """'gpu', 'gpu and tp', 'gpu, tp and batch'."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def number(c: Chosen, name: str, base) -> str:
    """A value in its display unit, as the tables print it (the variable's digits); '-' where there is none."""
    if base is None:
        return "-"
    v = c.model.variables[name]
    if getattr(v, "choices", ()):
        return v.choices[int(base) - 1]
    return fmt(in_unit(base, v.factor), v.digits)


def quantity(c: Chosen, name: str, base) -> str:
    unit = c.model.variables[name].unit
    return f"{number(c, name, base)} {unit}".rstrip() if base is not None else "none"


def varied_names(c: Chosen) -> list[str]:
    return [a.name for a in c.search.over] + ([c.search.free] if c.search.free else [])


def question(c: Chosen) -> str:
    """The question in words: 'the gpu and tp with the lowest cost'."""
    s, what = c.search, joined(varied_names(c))
    if c.frontier:
        x, y = s.goals
        return f"the configurations of {what} that no other beats on both {x.name} ({better(x.seek)}) and {y.name} ({better(y.seek)})"
    return f"the {what} with the {seek_word(s.goals[0].seek)} {s.goals[0].name}"


def values(c: Chosen, k: int) -> str:
    """Axis k's values as listed: 'h100-sxm, h200' or '1, 2, 3, ..., 64 (64 values)', with the unit."""
    a = c.search.over[k]
    shown = list(a.values) if a.catalog else [number(c, a.name, v) for v in a.values]
    text = ", ".join(shown) if len(shown) <= LISTED else ", ".join(shown[:3]) + f", ..., {shown[-1]} ({len(shown):,} values)"
    unit = "" if a.catalog else c.model.variables[a.name].unit
    return f"{text} {unit}".rstrip()


def varied(c: Chosen, free_range: tuple | None = None) -> list[tuple[str, str]]:
    """(name, what it takes): each axis's values, each inner unknown's question, the free variable's range."""
    s, m = c.search, c.model
    out = [(a.name, values(c, k)) for k, a in enumerate(s.over)]
    for var, q in s.inner:
        asked = m.questions[q]
        extreme = "largest" if asked.seek == "max" else "smallest"
        out.append((var, f"at each configuration, the answer of question {q}: the {extreme} {var} such that {asked.condition_text}"))
    if s.free:
        d = getattr(m.variables[s.free], "domain", None)
        lo, hi = free_range if free_range is not None else (getattr(d, "lo", None), getattr(d, "hi", None))
        span = f" from {quantity(c, s.free, lo)} to {quantity(c, s.free, hi)}" if lo is not None and hi is not None else " over its range"
        at = "at each configuration, " if s.over else ""
        out.append((s.free, f"{at}the best value{span} (a scan, then a golden-section search)"))
    return out


def size(c: Chosen) -> str:
    """'16 configurations (gpu 4 x tp 4)'."""
    axes = [a for a in c.search.over if len(a.values) > 1]
    detail = f" ({' x '.join(f'{a.name} {len(a.values):,}' for a in axes)})" if len(axes) > 1 else ""
    return plural(len(c.configs), "configuration") + detail


def config(c: Chosen, row: int, inner: bool = True) -> str:
    """'gpu = h200, tp = 8, batch = 705': the row's configuration (and its inner answers)."""
    s = c.search
    parts = [f"{a.name} = {v}" if a.catalog else f"{a.name} = {quantity(c, a.name, v)}" for a, v in zip(s.over, c.configs[row])]
    if inner:
        parts += [f"{n} = {quantity(c, n, c.inner[k][row])}" for k, n in enumerate(c.inner_names()) if c.inner[k][row] is not None]
    return ", ".join(parts)


def best(c: Chosen) -> str:
    """'gpu = h200, tp = 8, batch = 705: cost = 0.2861 USD/Mtoken, the lowest of the 6 configurations that meet every condition'."""
    g, i = c.search.goals[0], c.best
    return f"{config(c, i)}: {g.name} = {quantity(c, g.name, c.goals[0][i])}, {among(c)}"


def among(c: Chosen) -> str:
    """'the lowest of the 6 configurations that meet every condition (16 searched)': what the best is best of."""
    s = c.search
    extreme = f"the {seek_word(s.goals[0].seek)}"
    if not s.over:
        return f"{extreme} over {s.free}'s range"
    n, total = c.feasible, len(c.configs)
    if n == total:
        return f"{extreme} of {'the ' + plural(n, 'configuration') if n > 1 else 'the only configuration'}"
    return f"{extreme} of the {plural(n, 'configuration')} that meet{'s' if n == 1 else ''} every condition ({total:,} searched)"


def none(c: Chosen) -> str:
    """No configuration meets every condition: say so, and the closest one."""
    near = f"; the closest is {config(c, c.closest)}: {c.why[c.closest]}" if c.closest is not None else ""
    return f"no configuration meets every condition ({len(c.configs):,} searched){near}"


def placement(c: Chosen) -> list[str]:
    """Where the best sits along each varied number (a GPU or LLM list has no order): an edge, next to a failing value, or inside."""
    s, i = c.search, c.best
    if i is None:
        return []
    out, stride = [], 1
    strides = []
    for a in reversed(s.over):
        strides.append(stride)
        stride *= len(a.values)
    strides.reverse()
    for k, (a, where) in enumerate(zip(s.over, c.placement)):
        if a.catalog or where == "only":
            continue
        pos = i // strides[k] % len(a.values)
        here = f"{a.name} = {quantity(c, a.name, a.values[pos])}"
        if where == "edge":
            end, way = ("first", "smaller") if pos == 0 else ("last", "larger")
            out.append(f"{here} is the {end} of its values: whether a {way} {a.name} would be better was not searched")
        elif where == "bound":
            nbrs = [i + d * strides[k] for d in (-1, 1) if 0 <= pos + d < len(a.values)]
            bad = [j for j in nbrs if c.why[j] or c.goals[0][j] is None]
            said = " and ".join(f"{a.name} = {quantity(c, a.name, a.values[j // strides[k] % len(a.values)])}, which fails {c.failed[j] or 'for want of a value'}" for j in bad)
            out.append(f"{here} is next to {said}")
        else:
            out.append(f"{here} is inside its values: both neighbours are worse")
    if s.free and c.free_where:
        here = f"{s.free} = {quantity(c, s.free, c.inner[-1][i])}"
        out.append(
            {
                "edge": f"{here} is at an end of its range",
                "bound": f"{here} is next to where a condition fails or there is no value",
                "interior": f"{here} is inside its range: {s.goals[0].name} is worse on both sides",
            }[c.free_where]
        )
    return out


def binding(c: Chosen) -> str:
    """What binds: the condition that keeps out the most configurations that would beat the best."""
    g = c.search.goals[0].name
    unmeasured = [lb for lb, x in zip(c.failed, c.goals[0]) if lb and x is None]
    why = ""
    if unmeasured:
        labels = joined(sorted(set(unmeasured)))
        why = f"; {plural(len(unmeasured), 'configuration')} {'has' if len(unmeasured) == 1 else 'have'} no {g} to compare (failing {labels})"
    if not c.binding:
        return "none: no configuration that would be better fails a condition" + why
    label, n = c.binding[0]
    rest = "".join(f"; {lb} rules out {k:,}" for lb, k in c.binding[1:])
    return f"{label}, which rules out {plural(n, 'configuration')} that would be better{rest}{why}"


def failures(c: Chosen) -> list[Failure]:
    """Each reason configurations fail (a condition, an inner question, no value), most first, with its first example."""
    first: dict = {}
    counts: dict = {}
    for i, label in enumerate(c.failed):
        if label:
            counts[label] = counts.get(label, 0) + 1
            first.setdefault(label, i)
    out = []
    for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        why = c.why[first[label]]
        for prefix in (f"{label}: ", f"question {label}: "):
            if why.startswith(prefix):
                why = why[len(prefix) :]
        out.append(Failure(label, n, first[label], why))
    return out


def failing(c: Chosen) -> str:
    """'10 of 16 configurations fail'."""
    n = sum(1 for f in c.failed if f)
    return f"{n:,} of {plural(len(c.configs), 'configuration')} fail{'s' if n == 1 else ''}"


def frontier(c: Chosen) -> str:
    """'5 configurations are on the frontier, best per_user first (27 of 30 meet every condition)'."""
    x = c.search.goals[0]
    n = len(c.order)
    return f"{plural(n, 'configuration')} {'is' if n == 1 else 'are'} on the frontier, the {seek_word(x.seek)} {x.name} first ({c.feasible:,} of {len(c.configs):,} meet every condition)"


def ranked(c: Chosen) -> str:
    """'the best 3 of the 6 that meet every condition, ranked': what the ranked table shows."""
    n, of = len(shown_rows(c)), c.feasible
    if n == of:
        return f"{'all ' + str(n) if n > 1 else 'the one'} that meet{'s' if n == 1 else ''} every condition, ranked" if len(c.configs) > of else f"all {n:,}, ranked" if n > 1 else "the only one"
    return f"the best {n:,} of the {of:,} that meet every condition, ranked" if len(c.configs) > of else f"the best {n:,} of {of:,}, ranked"


def columns(c: Chosen) -> list[tuple[str, str, bool]]:
    """The table's columns: (name, unit, is a catalog id), the axes, the inner answers, the goals."""
    m = c.model
    return [(n, "" if n in ("gpu", "llm") else m.variables[n].unit, n in ("gpu", "llm")) for n, _, _ in _columns(c)]


def _columns(c: Chosen) -> list[tuple[str, str, int]]:
    """(name, kind, index): each value once (an inner answer or an axis that is a goal is its goal's column)."""
    s = c.search
    goals = [g.name for g in s.goals]
    out = [(a.name, "axis", k) for k, a in enumerate(s.over)]
    out += [(n, "inner", k) for k, n in enumerate(c.inner_names()) if n not in goals]
    out += [(g.name, "goal", k) for k, g in enumerate(s.goals) if g.name not in s.axes]
    return out


def cells(c: Chosen, row: int) -> list[str]:
    """A row of the table, in display units as the columns say ('-': none)."""
    s = c.search
    out = []
    for name, kind, k in _columns(c):
        if kind == "axis":
            v = c.configs[row][k]
            out.append(str(v) if s.over[k].catalog else number(c, name, v))
        else:
            out.append(number(c, name, (c.inner if kind == "inner" else c.goals)[k][row]))
    return out


def shown_rows(c: Chosen) -> tuple:
    """The rows a table shows: a frontier's every point; else the best `show:` of the ranked ones."""
    return tuple(c.order) if c.frontier else tuple(c.order[: c.search.show])
