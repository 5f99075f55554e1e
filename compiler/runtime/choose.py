"""The rule for choosing among configurations: rank, frontier, what binds, the closest miss, a 1-D optimum.

Plain standard-library code, copied into generated modules (see __init__.py). Configurations are
rows numbered in the order of the search's grid (the first axis slowest); each rule takes per-row
lists (a goal's value, None where the row has none; whether every condition holds) and returns row
numbers, so the solver, the generated modules and the workbook's formulas decide alike. Ties go to
the row listed first.
"""

import math


def ranked(goal, feasible, seek: str) -> list:
    """The rows where every condition holds, best goal first (ties: the row listed first)."""
    kept = [i for i, ok in enumerate(feasible) if ok and goal[i] is not None]
    return sorted(kept, key=lambda i: (goal[i] if seek == "min" else -goal[i], i))


def frontier(xs, ys, feasible, seek_x: str, seek_y: str) -> list:
    """The rows no other feasible row beats (as good on both goals, better on one), best x first."""
    sx, sy = (1 if seek_x == "min" else -1), (1 if seek_y == "min" else -1)
    kept = sorted((i for i, ok in enumerate(feasible) if ok and xs[i] is not None and ys[i] is not None), key=lambda i: (sx * xs[i], sy * ys[i], i))
    out, best_y, last = [], None, None
    for i in kept:
        key = (sx * xs[i], sy * ys[i])
        if best_y is None or key[1] < best_y or key == last:  # an equal point dominates none: both stay
            out.append(i)
            best_y = key[1] if best_y is None else min(best_y, key[1])
            last = key
    return out


def binding(goal, failed, best, seek: str) -> list:
    """(what failed, how many rows): what keeps out the rows whose goal beats the best's, most first.

    failed[i]: the label of the first condition that fails at row i ('' where all hold); best: the best
    row's goal, None when no row meets every condition (then every row with a goal counts)."""
    counts = {}
    for i, label in enumerate(failed):
        if label and goal[i] is not None and (best is None or (goal[i] < best if seek == "min" else goal[i] > best)):
            counts[label] = counts.get(label, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def satisfied(op: str, left, right) -> bool:
    """`left op right` for a condition's operator ('<=', '<', '>=', '>')."""
    return (op == "<=" and left <= right) or (op == "<" and left < right) or (op == ">=" and left >= right) or (op == ">" and left > right)


def shortfall(op: str, left, right) -> float:
    """How far `left op right` is from holding, relative to the larger side (0 where it holds)."""
    if satisfied(op, left, right):
        return 0.0
    scale = max(abs(left), abs(right))
    return float(abs(left - right) / scale) if scale else 0.0


def tested(conditions) -> tuple:
    """A configuration's conditions, in order: (the label of the first that fails, '' where all hold; why, in words; the largest shortfall).

    conditions: (label, text, op, sides, words) each; sides() -> (left, right), raising ArithmeticError,
    ValueError or TypeError where a side has no value, which ends the test (the row then has no shortfall,
    None); words(left, right) -> (left as text, the operator that holds instead, right as text).
    """
    failed, why, misses = "", "", []
    for label, text, op, sides, words in conditions:
        try:
            left, right = sides()
        except (ArithmeticError, ValueError, TypeError) as e:
            return label, f"{label}: {text} has no value here ({e})", None
        misses.append(shortfall(op, left, right))
        if not failed and not satisfied(op, left, right):
            failed, why = label, f"{label}: " + " ".join(words(left, right))
    return failed, why, max(misses, default=0.0)


def decide(goals, feasible, failed, misses, seeks, sizes) -> tuple:
    """The rule over every configuration's row: (order, binding, closest, placement).

    goals: per goal, per row (None: the row has none); seeks: per goal. One goal: the feasible rows ranked,
    what keeps better rows out, and where the best sits along each axis; two goals: the frontier. Where no
    row meets every condition, closest is the row nearest to it (else None).
    """
    if len(seeks) == 2:
        order, binds = frontier(goals[0], goals[1], feasible, seeks[0], seeks[1]), []
    else:
        order = ranked(goals[0], feasible, seeks[0])
        binds = binding(goals[0], failed, goals[0][order[0]] if order else None, seeks[0])
    near = None if order else closest(misses)
    where = placement(order[0], sizes, goals[0], feasible, seeks[0]) if order and len(seeks) == 1 else []
    return order, binds, near, where


def nothing(count: int, near: str, why: str) -> str:
    """No configuration meets the conditions, in words: how many were searched, the closest and why it fails ('' none)."""
    return f"no configuration meets the conditions ({count} searched)" + (f"; the closest is {near}: {why}" if near else "")


def optimised(at, goal, lo, hi, seek: str) -> tuple:
    """A configuration with a free variable: (x, where, the row at x) for the best goal(at(x)) over [lo, hi] (optimum).

    goal(row) is None where the row fails a condition or has no value; where no x has one, x is None and
    the row is the one at the range's middle, which says why.
    """
    try:
        x, _, where = optimum(lambda x: goal(at(x)), lo, hi, seek)
    except ValueError:
        return None, "", at((lo + hi) / 2)
    return x, where, at(x)


def closest(misses) -> int | None:
    """The row nearest to meeting every condition: the smallest shortfall (None where a row has no values); ties: first."""
    best = None
    for i, m in enumerate(misses):
        if m is not None and (best is None or m < misses[best]):
            best = i
    return best


def placement(best: int, sizes, goal, feasible, seek: str) -> list:
    """Per axis, where the best row sits along it: 'edge' (its first or last value), 'bound' (a neighbour
    that would be better fails a condition or has no value), or 'interior' (both neighbours are worse)."""
    out, stride = [], 1
    strides = []
    for n in reversed(sizes):
        strides.append(stride)
        stride *= n
    strides.reverse()
    for k, n in enumerate(sizes):
        pos = best // strides[k] % n
        if n == 1:
            out.append("only")
            continue
        words = "interior"
        for step in (-1, 1):
            j = pos + step
            if not 0 <= j < n:
                words = "edge"
                break
            other = best + step * strides[k]
            if not feasible[other] or goal[other] is None:
                words = "bound"
        out.append(words)
    return out


def optimum(f, lo, hi, seek: str, points: int = 64) -> tuple:
    """(x, f(x), where) for the best f over [lo, hi]; f(x) is None where x has no value or fails a condition.

    A scan of `points` (geometric where the range spans more than two decades above zero), then a
    golden-section search between the best point's neighbours, a point without a value counting as the
    worst. where: 'edge' (lo or hi), 'bound' (next to a point without a value: a condition's edge),
    'interior'. Raises ValueError when no point has a value.
    """
    sign = 1 if seek == "min" else -1
    if lo > 0 and hi / lo > 100:
        xs = [lo * (hi / lo) ** (k / (points - 1)) for k in range(points)]
    else:
        xs = [lo + (hi - lo) * k / (points - 1) for k in range(points)]
    xs[0], xs[-1] = lo, hi

    def cost(x):
        y = f(x)
        return math.inf if y is None else sign * y

    ys = [cost(x) for x in xs]
    i = min(range(points), key=lambda k: (ys[k], k))
    if ys[i] == math.inf:
        raise ValueError("no point has a value")
    a, c = xs[max(i - 1, 0)], xs[min(i + 1, points - 1)]
    best_x, best_y = xs[i], ys[i]
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = c - g * (c - a), a + g * (c - a)
    y1, y2 = cost(x1), cost(x2)
    for _ in range(200):
        if abs(c - a) <= 1e-12 * max(abs(a), abs(c), 1e-300):
            break
        if y1 <= y2:
            c, x2, y2 = x2, x1, y1
            x1 = c - g * (c - a)
            y1 = cost(x1)
        else:
            a, x1, y1 = x1, x2, y2
            x2 = a + g * (c - a)
            y2 = cost(x2)
        for x, y in ((x1, y1), (x2, y2)):
            if y < best_y:
                best_x, best_y = x, y
    if best_x in (lo, hi):
        where = "edge"
    elif any(y == math.inf for y in ys[max(i - 1, 0) : i + 2]):
        where = "bound"
    else:
        where = "interior"
    return best_x, sign * best_y, where
