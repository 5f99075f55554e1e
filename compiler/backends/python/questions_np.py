"""The NumPy flavour's question functions: the answer rule as one vectorised program over every point.

A question prints, beside the scalar rule at one point (questions.py), `_vector_<question>(inputs)`:
its `feasible(x, skip)` runs the at-program's quiet form (vector.QuietProgramWriter) at x over
all points and compares the condition's sides; its boundary is the boundary program's quiet form
(NaN where a point has none); answer_np.py's `_answer_np` (or `_combine_np` over the parts' own
vector rules) decides every point at once. The public function calls it, then `_answered_np`,
which runs the scalar rule only at a point without an answer, to raise the scalar flavour's error.
"""

from __future__ import annotations

from ... import program as P
from .layout import INDENT, Out, doc, unpack
from .names import comment, docstring_text, domain_tuple, literal, number, optional, scale
from .statements import Locals, program_inputs
from .vector import writer_for


def numpy_answer(module, out: Out, fname: str, asking, inputs: list[str], loc: Locals, rule: str, titles: str, factor, as_int: bool, unread=()) -> None:
    """The public function's last lines: every point by the vector rule; the scalar rule's error at the first without an answer.

    unread: the arguments the rule does not read, whose shapes the answer still takes (one answer per point asked).
    """
    vector = vector_rule(module, fname, asking, inputs)
    args = [loc[n] for n in inputs]
    if args:
        out.call("_points = np.broadcast_arrays", args)
    else:
        out.emit("_points = ()")
    out.emit(f"_values, _codes = {vector}(*_points)")
    out.call("value = _answered_np", ["_values", "_codes", rule, "_points", titles])
    if unread:
        out.call("value = np.broadcast_to", ["value", f"np.broadcast_shapes(np.shape(value), {', '.join(f'np.shape({a})' for a in unread)})"])
    module.physical_at_answer(out, asking, loc)  # at every answer: a limit that fails there warns, naming the first point
    shown = scale("value", factor, False)
    out.emit(f"return _answers_np({shown}, {as_int})")
    module.used |= {"_answered_np", "_answers_np", "np"}


def vector_rule(module, fname: str, asking, inputs: list[str]) -> str:
    """`_vector_<question>(inputs)` -> (answers, codes) at every point (base units); returns its name."""
    ctx = module.ctx
    mn = ctx.main
    q = asking.question
    name = ctx.private(f"vector_{fname}")
    module.vector_rules[q.name] = (name, inputs)
    loc = Locals(mn.variables)
    pr = writer_for(True).Printer(loc)
    out = Out()
    out.call(f"def {name}", [loc[n] for n in inputs], ":")
    out.push()
    doc(out, docstring_text(f"Question {comment(q.name)} at every point at once (base units): (answers, codes), as chainc's ask decides each point."))
    out.call("_shape = np.broadcast_shapes", [f"np.shape({loc[n]})" for n in inputs])
    _feasible(module, out, asking, loc, pr)
    d = asking.at.domains[q.find]
    domain = domain_tuple(d)
    edges = [literal(q.seek), optional(asking.step), optional(asking.lo), optional(asking.hi), number(asking.probe)]
    if q.parts:
        limits = []
        for _, part in q.parts:
            fn, args = module.vector_rules[part]
            limits.append(f"{fn}({', '.join(loc[n] for n in args)})")
        out.call("_limits = ", limits, "", "[", "]")
        out.call("return _combine_np", ["_limits", "_feasible", "_shape", domain, *edges, str(d.integer)])
        module.used.add("_combine_np")
    else:
        if asking.closed:
            fn = ctx.program(asking.boundary, f"boundary_{fname}", mn, quiet=True)
            index = list(asking.boundary.outputs).index(q.find)
            out.call(f"_boundary = {fn}", [*(loc[n] for n in program_inputs(asking.boundary)), "np.zeros(_shape, dtype=bool)"])
            out.emit(f"boundary = np.where(_boundary[-1], np.nan, _boundary[{index}])  # NaN: no admissible boundary at the point")
        else:
            out.emit("boundary = np.nan  # no closed form: the rule searches the domain")
        out.call("return _answer_np", ["boundary", "_feasible", "_shape", domain, *edges, str(asking.closed), str(asking.strict), str(d.integer)])
        module.used.add("_answer_np")
    module.used |= pr.used | {"np"}
    module.private.append(out.lines)
    return name


def _feasible(module, out: Out, asking, loc: Locals, pr) -> None:
    """`_feasible(x, _skip)`: (the condition holds, it divides by zero) at x over the points; a point without a value does not hold."""
    ctx = module.ctx
    q = asking.question
    at = ctx.program(asking.at, f"solve_{ctx.main.mid}", ctx.main, quiet=True)
    guards = [] if q.parts else list(asking.guards)  # the scalar rule checks a single condition's divisors
    needed = P.refs(asking.condition) | set().union(*(P.refs(x) for g in guards for x in g))
    outputs = [*asking.at.outputs, *(f"rows:{t}" for t in asking.at.tables)]
    out.nested_def(f"def _feasible({loc[q.find]}, _skip):")
    out.emit('with np.errstate(all="ignore"):')
    out.push()
    out.emit("try:")
    out.push()
    unpack(out, [*(loc[n] if n in needed else "_" for n in outputs), "_bad"], at, [*(loc[n] for n in program_inputs(asking.at)), "_skip"])
    out.pop()
    out.emit("except ChainError as e:  # a limit stops the search, in the scalar rule's words")
    _limit_stops(out, q)
    out.emit(f"{INDENT}raise")
    condition = pr.code(asking.condition)
    if guards:
        zeros = []
        for div, when in guards:
            zero = f"({pr.code(div, 6)} == 0)"
            zeros.append(zero if when == P.TRUE else f"np.logical_and({pr.code(when)}, {zero})")
        out.emit(f"_zero = ~_bad & ({' | '.join(zeros)})  # the condition divides by zero: an error, not a no")
        out.emit(f"return ~_bad & ~_zero & ({condition}), _zero")
    else:
        out.emit(f"return ~_bad & ({condition}), False")
    out.pop()
    out.end_def()


def _limit_stops(out, q) -> None:
    """A limit reached at x is not "no value at x": the search cannot go on (the solver's words)."""
    out.emit(f'{INDENT}if e.kind == "limit":')
    out.emit(f'{INDENT * 2}raise ChainError({literal(f"question {q.name}: the search for {q.find} stopped: ")} + e.message, e.hint, "limit") from None')
