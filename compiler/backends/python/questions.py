"""Question functions and the build's custom query, following runtime.answer.answer exactly.

A question prints as two functions. The private `_ask_<question>(inputs, titles)`
is the rule at one point, as compiler/solve.py's ask_query runs it: the boundary
program (its error means no boundary), `feasible(x)` from the at-program and the
condition, the rule itself (`_answer`, copied from the runtime), and the solver's
messages when there is no answer. The public function checks and converts its
arguments and calls it. The NumPy flavour's public function runs the rule at every
point at once instead (questions_np.py) and calls the rule at one point only where a
point has no answer, for its error.
"""

from __future__ import annotations

from fractions import Fraction

from ... import program as P
from ...numbers import exact
from .layout import INDENT, Out, doc, tuple_text, unpack
from .names import comment, docstring_text, domain_tuple, literal, number, optional, scale, set_values
from .questions_np import _limit_stops, numpy_answer
from .statements import Locals, program_inputs
from .vector import writer_for


def _whole(x, factor) -> bool:
    return x is None or (Fraction(x) / Fraction(factor)).denominator == 1


def question_function(module, fname: str, asking) -> list[str]:
    ctx = module.ctx
    mn = ctx.main
    m = mn.model
    q = asking.question
    var = m.variables[q.find]
    factor = exact(var.factor)
    numpy = module.numpy
    known = [n for n in m.variables if n in asking.at.inputs and n != q.find]
    rule = _rule_function(module, fname, asking, known)
    as_int = var.domain.integer and asking.step is not None and all(_whole(x, factor) for x in (asking.step, asking.lo, asking.hi))
    largest = "largest" if q.seek == "max" else "smallest"
    out = Out()
    out.call(f"def {fname}", module.signature(mn, known), f" -> {('np.ndarray | int' if as_int else 'np.ndarray | float') if numpy else 'int' if as_int else 'float'}:")
    out.push()
    rounding = ""
    if asking.step is not None:
        rounding = f", {'rounded down' if q.seek == 'max' else 'rounded up'} to a multiple of {number(Fraction(asking.step) / factor)} {var.unit}".rstrip()
    body = [f"{comment(q.ask) or comment(q.name)}.", "", f"The {largest} {q.find} such that {comment(q.condition_text)}{rounding}, as chainc's ask finds it:"]
    body += (
        [
            "the most restrictive of the conditions' own answers (each a question of its own above), where all",
            "conditions hold at it; else a search of the domain with all of them together.",
        ]
        if q.parts
        else [
            "the boundary (the condition as an equation) when the condition holds on its one side,",
            f"else the domain's {'upper' if q.seek == 'max' else 'lower'} edge when the condition holds up to it.",
        ]
    )
    body += [
        "",
        "Args:",
        *(f"    {a}" for a in module.args_doc(mn, known)),
        "",
        "Returns:",
        f"    {q.find} [{comment(var.unit) or '1'}]"
        + ((": an array of whole numbers (int64); an int for scalar arguments." if as_int else ": an array; a float for scalar arguments.") if numpy else ", a whole number." if as_int else "."),
        "",
        "Raises:",
        f"    ChainError: an input outside its domain, no {q.find} meets the condition (the message quotes the numbers at the limit),",
        f"    or there is no {largest} one" + ("; inputs are checked first (the first element outside its domain raises), then the first element without an answer raises." if numpy else "."),
    ]
    doc(out, "\n".join(docstring_text(b) for b in body))
    loc = Locals(mn.variables)
    module.begin(out)
    module.prologue(out, mn, loc, known, set(known))
    titles = tuple_text([f"_TITLES[{literal(k)}].get({k}, {k})" for k in mn.kinds()]) if mn.kinds() else "()"
    inputs = _rule_inputs(module, asking, known)
    if numpy:
        numpy_answer(module, out, fname, asking, inputs, loc, rule, titles, factor, as_int, [loc[n] for n in known if n not in inputs])
        return out.lines
    out.call("value = " + rule, [*(loc[n] for n in inputs), titles])
    module.physical_at_answer(out, asking, loc)  # an answer where a limit fails says so
    shown = scale("value", factor, False)
    module.used.add("_answer_number")
    out.emit(f"return _answer_number({shown}, {as_int})")
    return out.lines


def _as_numpy(module, out: Out, names: list[str]) -> None:
    """NumPy's rule computes on NumPy scalars: a division by zero is then NumPy's (checked, an error), not Python's (raised)."""
    for n in names if module.numpy else ():
        out.emit(f"{n} = np.float64({n})")


def _rule_inputs(module, asking, known: list[str]) -> list[str]:
    """What the rule function takes: the known variables and parameters both programs read (and the parts' rules)."""
    read = set(program_inputs(asking.at)) | (set(program_inputs(asking.boundary)) if asking.boundary is not None else set())
    read |= {n for _, part in asking.question.parts for n in module.rules[part][1]}
    read |= set().union(*(P.refs(x) for g in asking.guards for x in g))  # the condition's divisors (cancelled or not)
    return [n for n in asking.at.inputs if n in read and n != asking.question.find and (n in known or n not in asking.at.domains)]


def _rule_function(module, fname: str, asking, known: list[str]) -> str:
    ctx = module.ctx
    mn = ctx.main
    m = mn.model
    q = asking.question
    var = m.variables[q.find]
    numpy = module.numpy
    name = ctx.private(f"ask_{fname}")
    loc = Locals(mn.variables)
    inputs = _rule_inputs(module, asking, known)
    module.rules[q.name] = (name, inputs)
    out = Out()
    out.call(f"def {name}", [*(loc[n] for n in inputs), "titles"], ":")
    out.push()
    doc(out, docstring_text(f"Question {comment(q.name)} at one point (base units), as chainc's ask answers it; titles: the hardware's, for messages."))
    _as_numpy(module, out, [loc[n] for n in inputs])
    # the condition's two sides at x, from the at-program
    at = ctx.program(asking.at, f"solve_{mn.mid}", mn)
    x = loc[q.find]
    if q.parts:
        _combined_rule(module, out, asking, at, loc)
        module.private.append(out.lines)
        return name
    out.nested_def(f"def _sides({x}):")
    _as_numpy(module, out, [x])
    sides = [asking.condition.left, asking.condition.right]
    _at_point(out, asking, at, loc, set().union(*(P.refs(s) for s in sides), *(P.refs(x) for g in asking.guards for x in g)))
    pr = writer_for(numpy).Printer(loc)
    for div, when in asking.guards:  # a division the condition writes, which SymPy may have cancelled
        zero = f"{pr.code(div, 6)} == 0"
        test = zero if when == P.TRUE else f"{pr.code(when, 4)} and {zero}"
        out.emit(f"if {'np.any(' + test + ')' if numpy else test}:")
        out.emit(f"{INDENT}raise ZeroDivisionError({literal(P.text(div))})")
    values = [pr.code(s) for s in sides]
    if numpy:  # the rule runs on Python floats, as in the scalar flavour
        values = [v if isinstance(side, P.Num) else f"float({v})" for v, side in zip(values, sides)]
    out.emit(f"return {', '.join(values)}")
    out.end_def()
    out.nested_def("def _feasible(x):")
    out.emit("try:")
    out.emit(f"{INDENT}left, right = _sides(x)")
    if asking.guards:
        out.emit("except ZeroDivisionError as e:  # the condition divides by zero: an error, not a no")
        out.emit(f'{INDENT}raise ChainError({literal(f"division by zero in question {q.name}: {q.condition_text}")}, f"the divisor {{e}} is 0 here") from None')
    out.emit("except ChainError as e:  # the model has no admissible value at x: the condition does not hold there")
    _limit_stops(out, q)
    out.emit(f"{INDENT}return False")
    out.emit(f"return {'bool(left ' if numpy else 'left '}{asking.condition.op} right{')' if numpy else ''}")
    out.end_def()
    if asking.boundary is not None:
        fn = ctx.program(asking.boundary, f"boundary_{fname}", mn)
        index = list(asking.boundary.outputs).index(q.find)
        out.emit("try:")
        out.push()
        out.call(f"boundary = {fn}", [loc[n] for n in program_inputs(asking.boundary)], f"[{index}]")
        if numpy:
            out.emit("boundary = float(boundary)")
        out.pop()
        out.emit("except ChainError:  # no admissible boundary: the rule tests one point")
        out.emit(f"{INDENT}boundary = None")
    else:
        out.emit("boundary = None  # the condition as an equation has no plan")
    d = asking.at.domains[q.find]
    admissible = f"lambda x: _admits(x, {domain_tuple(d)[1:-1]})"
    rule = [
        "boundary",
        "_feasible",
        admissible,
        literal(q.seek),
        optional(asking.step),
        optional(asking.lo),
        optional(asking.hi),
        number(asking.probe),
        str(asking.closed),
        str(asking.strict),
        str(d.integer),
        *([set_values(d)] if d.values is not None else []),
    ]
    labels = []
    for side in sides:
        if isinstance(side, P.Ref) and side.name in m.variables:
            sv = m.variables[side.name]
            labels.append(f"({literal(side.name)}, {literal(sv.unit)}, {number(exact(sv.factor))})")
        else:
            labels.append("None")
    about = [literal(q.name), literal(q.find), literal(var.unit), number(exact(var.factor)), literal(comment(q.condition_text))]
    about += [literal(P.NEGATED[asking.condition.op]), f"({', '.join(labels)})", literal(d.words), literal(q.seek)]
    module.used |= {"_answer", "_admits", "_question_error", "_NoAnswer"} | pr.used
    out.emit("try:")
    out.push()
    out.call("return _answer", rule, "[0]")
    out.pop()
    out.emit("except _NoAnswer as e:")
    out.push()
    out.call("raise _question_error", ["e", "_sides", f"({', '.join(about)})", "titles"], " from None")
    module.private.append(out.lines)
    return name


def _at_point(out: Out, asking, at: str, loc: Locals, needed: set) -> None:
    """The at-program run at the question's variable, unpacking only the names the condition reads (`needed`)."""
    outputs = [*asking.at.outputs, *(f"rows:{t}" for t in asking.at.tables)]
    names = [loc[n] if n in needed else "_" for n in outputs]
    if any(n != "_" for n in names):
        unpack(out, names, at, [loc[n] for n in program_inputs(asking.at)])


def _combined_rule(module, out: Out, asking, at: str, loc: Locals) -> None:
    """Several conditions: runtime.answer.combine over the parts' own rule functions, as the solver combines them."""
    q = asking.question
    m = module.ctx.main.model
    var = m.variables[q.find]
    numpy = module.numpy
    pr = writer_for(numpy).Printer(loc)
    out.nested_def(f"def _feasible({loc[q.find]}):")
    _as_numpy(module, out, [loc[q.find]])
    out.emit("try:")
    out.push()
    _at_point(out, asking, at, loc, P.refs(asking.condition))
    out.emit(f"return bool({pr.code(asking.condition)})")
    out.pop()
    out.emit("except ChainError as e:  # the model has no admissible value at x: the conditions do not hold there")
    _limit_stops(out, q)
    out.emit(f"{INDENT}return False")
    out.end_def()
    parts = []
    for label, part in q.parts:
        fn, inputs = module.rules[part]
        parts.append(f"({literal(label)}, lambda: {fn}({', '.join([*(loc[n] for n in inputs), 'titles'])}))")
    out.emit("limits = []")
    out.call("for label, part in ", parts, ":", "[", "]")
    out.emit(f"{INDENT}try:")
    out.emit(f"{INDENT * 2}limits.append((label, part(), None))")
    out.emit(f"{INDENT}except ChainError as e:")
    out.emit(f'{INDENT * 2}if e.kind not in ("infeasible", "unbounded"):')
    out.emit(f"{INDENT * 3}raise")
    out.emit(f"{INDENT * 2}limits.append((label, None, e))")
    d = asking.at.domains[q.find]
    admissible = f"lambda x: _admits(x, {domain_tuple(d)[1:-1]})"
    rule = [
        '[(label, value, e.kind if e else "answer") for label, value, e in limits]',
        "_feasible",
        admissible,
        literal(q.seek),
        optional(asking.step),
        optional(asking.lo),
        optional(asking.hi),
        number(asking.probe),
        str(d.integer),
        *([set_values(d)] if d.values is not None else []),
    ]
    about = [literal(q.name), literal(q.find), literal(var.unit), number(exact(var.factor)), literal(comment(q.condition_text)), '""', "(None, None)", literal(d.words), literal(q.seek)]
    module.used |= {"_combine", "_nowhere", "_admits", "_question_error", "_NoAnswer"} | pr.used
    out.emit("try:")
    out.push()
    out.call("return _combine", rule, "[0]")
    out.pop()
    out.emit("except _NoAnswer as e:")
    out.push()
    out.emit('if e.kind == "infeasible" and isinstance(e.at, tuple):  # conditions that hold nowhere: their own messages')
    out.emit(f"{INDENT}raise _nowhere({literal(q.name)}, [err for label, _, err in limits if label in e.at]) from None")
    out.call("raise _question_error", ["e", "None", f"({', '.join(about)})", "titles"], " from None")


def query_function(module, fname: str, solution, find: list[str], given: list[str]) -> list[str]:
    """`batch_from_tpot(tpot=10, *, ...)`: the build's --find/--given query, its givens first (their values as defaults)."""
    mn = module.ctx.main
    m = mn.model
    positional = [(n, solution.given[n]) for n in given if n in solution.given]
    summary = f"Solve {comment(m.title)} for {', '.join(find) or 'every variable'} from {', '.join(given) or 'the defaults'} (chainc build --find/--given)."
    return module.forward(fname, summary, solution.program, positional)
