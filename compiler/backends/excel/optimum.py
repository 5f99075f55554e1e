"""A free variable's optimum at one configuration, in cells: runtime/choose.optimum, step for step.

A search whose `find:` is a bounded continuous variable (best_overlap) optimises it at each
configuration. The rule, as rows below the configurations (folded):

- 64 scan points (geometric where the range spans more than two decades above zero): constants,
  the domain's ends exactly; at each, the search's program and its conditions, and the cost (the goal,
  negated for a maximum; a point without a value or failing a condition costs INF);
- the best scan point (the first of least cost) and its neighbours bracket the golden-section search;
- 2 rows for the bracket's first two points, then 200 step rows, each one new point: the bracket
  moves towards the lower cost, and once it is within 1e-12 (relative) of closing every later row
  repeats it (the solver's loop stops there); the best point seen is carried along;
- where the optimum is: at an end of the range, next to a point without a value ('bound'), or interior.

With no point of value, the row is the model at the range's middle (its why), as the solver does.
"""

from __future__ import annotations

import math
from fractions import Fraction

from openpyxl.utils import get_column_letter

from ...chosen import PLACEMENT_WORDS as W
from ...numbers import exact
from . import xl
from .cells import BOLD, GREY_FONT, SECTION_FONT
from .emit import Emitter, Row

POINTS, STEPS = 64, 200
INF = 1e300  # the cost of a point without a value: the solver's math.inf (no goal here comes near it)
GOLDEN = (math.sqrt(5) - 1) / 2


def n(x):
    return xl.number(x)


def points(lo: Fraction, hi: Fraction) -> list:
    """The scan's points in base units, exactly as runtime/choose.optimum spaces them."""
    if lo > 0 and hi / lo > 100:  # Fraction ** float is a float, as in the solver
        xs = [float(lo) * float(hi / lo) ** (k / (POINTS - 1)) for k in range(POINTS)]
    else:
        xs = [lo + (hi - lo) * k / (POINTS - 1) for k in range(POINTS)]
    xs[0], xs[-1] = lo, hi
    return xs


class Optimum:
    """The rows of one configuration's optimum; `x`, `has` and `where` are the cells the configuration's row reads."""

    def __init__(self, ss, i: int, scope):
        self.ss, self.i, self.scope = ss, i, scope
        self.sheet = ss.sheet
        self.name, lo, hi = ss.pc.free
        self.factor = exact(ss.model.variables[self.name].factor)
        self.lo, self.hi = lo, hi
        self.sign = 1 if ss.search.goals[0].seek == "min" else -1

    def cost(self, r: int, x) -> xl.Cell:
        """The program and the conditions at x (row r, from column C): the point's cost, INF where it has no value or fails."""
        ss, sh = self.ss, self.sheet
        scope = self.scope.child()
        scope.slots[self.name] = (x, self.factor)
        target = Row(sh, r, 3)
        em = Emitter(sh, ss.at.program, scope, target, ss.chain.factor, None, formats=ss.chain.formats)
        em.run()
        pr = em.printer()
        holds = [xl.fn("IFERROR", t, xl.FALSE) for t in em.oks]
        for _, _, cmp, guards in ss.pc.conditions:
            divides = [xl.fn("IF", pr.condition(w), xl.op("<>", pr.value(d), n(0)), xl.TRUE) for d, w in guards]
            holds.append(xl.fn("IFERROR", xl.all_of([*divides, pr.condition(cmp)]), xl.FALSE))
        goal = scope.resolve(ss.search.goals[0].name)[0]
        node = xl.fn("IF", xl.all_of(holds, xl.TRUE), xl.fn("IFERROR", xl.op("*", n(self.sign), goal), n(INF)), n(INF))
        self.cost_col = target.col
        return ss.put(r, target.col, node)

    def write(self, row: int) -> int:
        ss, sh = self.ss, self.sheet
        lo, hi, f = self.lo, self.hi, self.factor
        sh.text(row, 1, f"#{self.i + 1} {self.name}: its best value in [{xl.as_text(float(lo / f))}, {xl.as_text(float(hi / f))}], runtime/choose.optimum as rows", font=SECTION_FONT)
        first = row + 1
        xs, costs = [], []
        for k, x in enumerate(points(lo, hi)):
            r = first + k
            sh.text(r, 1, f"scan {k + 1}", font=GREY_FONT)
            xs.append(ss.put(r, 2, n(x / f if isinstance(x, Fraction) else x / float(f))))
            costs.append(self.cost(r, xs[-1]))
        last = first + POINTS - 1
        col = get_column_letter(self.cost_col)
        xr = xl.Range(f"$B${first}:$B${last}", tuple(x.value for x in xs))
        cr = xl.Range(f"${col}${first}:${col}${last}", tuple(c.value for c in costs))
        r = last + 1
        sh.text(r, 1, "best scan point", font=GREY_FONT)
        least = ss.put(r, 3, xl.fn("MIN", cr))
        k = ss.put(r, 2, xl.fn("MATCH", least, cr, n(0)), None, "0")
        none = ss.put(r, 4, xl.op(">=", least, n(INF)))

        def at(rng, j):
            return xl.fn("INDEX", rng, j, n(1))

        a = ss.put(r, 5, at(xr, xl.fn("MAX", xl.op("-", k, n(1)), n(1))))
        c = ss.put(r, 6, at(xr, xl.fn("MIN", xl.op("+", k, n(1)), n(POINTS))))
        bx, by = ss.put(r, 7, at(xr, k)), least
        sh.text(r, 8, "the first scan point of least cost (k), its cost, whether no point has a value, the bracket (a, c) and the best x so far", font=GREY_FONT)
        self.k, self.none, self.costs = k, none, cr
        r += 1
        width = xl.op("-", c, a)
        sh.text(r, 1, "x1", font=GREY_FONT)
        x1 = ss.put(r, 2, xl.op("-", c, xl.op("*", n(GOLDEN), width)))
        y1 = self.cost(r, x1)
        r += 1
        sh.text(r, 1, "x2", font=GREY_FONT)
        x2 = ss.put(r, 2, xl.op("+", a, xl.op("*", n(GOLDEN), width)))
        y2 = self.cost(r, x2)
        r += 1
        for j in range(STEPS):
            a, c, x1, y1, x2, y2, bx, by = self.step(r, j, a, c, x1, y1, x2, y2, bx, by)
            r += 1
        sh.text(r, 1, f"{self.name} at #{self.i + 1}", font=BOLD)
        middle = (lo + hi) / 2 / f
        self.x = ss.put(r, 2, xl.fn("IF", none, n(middle), bx), None, ss.chain.formats.get(self.name))
        self.has = xl.fn("NOT", none)
        self.where = ss.put(r, 3, self.placement(bx))
        sh.long(r, 4, 13, "the optimum (the range's middle where no point has a value), and where it lies", font=GREY_FONT)
        sh.ws.row_dimensions.group(first, r - 1, outline_level=1, hidden=True)
        return r + 2

    def step(self, r: int, j: int, a, c, x1, y1, x2, y2, bx, by):
        """One golden-section step: the bracket moves towards the lower cost and one new point is costed."""
        ss, sh = self.ss, self.sheet
        sh.text(r, 1, f"step {j + 1}", font=GREY_FONT)
        done = xl.op("<=", xl.fn("ABS", xl.op("-", c, a)), xl.op("*", n(1e-12), xl.fn("MAX", xl.fn("ABS", a), xl.fn("ABS", c), n(1e-300))))
        base = self.cost_col + 1  # the bracket after the step sits after the program's columns (the same in every row)
        done = ss.put(r, 2, done)
        left = xl.op("<=", y1, y2)
        a2 = ss.put(r, base, xl.fn("IF", done, a, xl.fn("IF", left, a, x1)))
        c2 = ss.put(r, base + 1, xl.fn("IF", done, c, xl.fn("IF", left, x2, c)))
        xn = ss.put(r, base + 2, xl.fn("IF", done, x1, xl.fn("IF", left, xl.op("-", c2, xl.op("*", n(GOLDEN), xl.op("-", c2, a2))), xl.op("+", a2, xl.op("*", n(GOLDEN), xl.op("-", c2, a2))))))
        yn = self.cost(r, xn)
        col = base + 3
        x1n = ss.put(r, col, xl.fn("IF", done, x1, xl.fn("IF", left, xn, x2)))
        y1n = ss.put(r, col + 1, xl.fn("IF", done, y1, xl.fn("IF", left, yn, y2)))
        x2n = ss.put(r, col + 2, xl.fn("IF", done, x2, xl.fn("IF", left, x1, xn)))
        y2n = ss.put(r, col + 3, xl.fn("IF", done, y2, xl.fn("IF", left, y1, yn)))
        better1 = xl.fn("AND", xl.fn("NOT", done), xl.op("<", y1n, by))
        bx1 = ss.put(r, col + 4, xl.fn("IF", better1, x1n, bx))
        by1 = ss.put(r, col + 5, xl.fn("IF", better1, y1n, by))
        better2 = xl.fn("AND", xl.fn("NOT", done), xl.op("<", y2n, by1))
        bxn = ss.put(r, col + 6, xl.fn("IF", better2, x2n, bx1))
        byn = ss.put(r, col + 7, xl.fn("IF", better2, y2n, by1))
        return a2, c2, x1n, y1n, x2n, y2n, bxn, byn

    def placement(self, bx):
        """'edge' at an end of the range, 'bound' next to a scan point without a value, else 'interior' (Chosen._where's words)."""
        f = self.factor
        edge = xl.fn("OR", xl.op("=", bx, n(self.lo / f)), xl.op("=", bx, n(self.hi / f)))
        k, cr = self.k, self.costs
        near = [xl.op(">=", xl.fn("INDEX", cr, j, n(1)), n(INF)) for j in (xl.fn("MAX", xl.op("-", k, n(1)), n(1)), k, xl.fn("MIN", xl.op("+", k, n(1)), n(POINTS)))]
        return xl.fn("IF", edge, xl.Str(W["edge"]), xl.fn("IF", xl.fn("OR", *near), xl.Str(W["bound"]), xl.Str(W["interior"])))
