"""Search functions: a question over configurations, an objective or a frontier, as chainc's choose runs it.

A search prints as a public function and three private ones, from the Report's prepared search
(`Report.choosing`, choosing.PreparedChoose: its grid, its programs, its inner questions):

- `<search>(**inputs) -> Choice`: checks and converts its arguments (every input but what the search
  varies; the catalog kinds it does not vary), lists every configuration (the first axis slowest, a
  catalog axis of every entry iterating GPUS or LLMS), takes each one's row, and hands the rows to the
  runtime's rule (`_chosen`, which calls runtime.choose.decide), which returns the Choice's fields or
  raises the solver's "no configuration" words;
- `_hardware_<search>(gpu, llm)`: the catalog values (and imported models' values) the search reads on
  one hardware, computed once per hardware; an entry without a value makes every row on it say so;
- `_config_<search>(hardware, inputs)`: one configuration's row, as choosing._at makes it: the defaults
  that follow the hardware, the inner questions answered by the module's own question rules, the model
  solved by the printed program, the conditions tested by runtime.choose.tested. A free variable is
  optimised around it by runtime.choose.optimised (`_free_row`).

The NumPy flavour adds `_vector_<search>` (searches_np.py), which runs every configuration at once and
leaves to `_config_<search>` only the rows it cannot decide (no value, no inner answer), so a row's
words are the scalar rule's. Both read the search through search_shape.Shape.
"""

from __future__ import annotations

import textwrap

from ... import program as P
from ...numbers import exact
from .layout import INDENT, Out, doc, tuple_text, unpack_value
from .names import comment, docstring_text, literal, number, optional
from .search_shape import Shape, default_expr, read, side_label
from .searches_np import vector_function
from .statements import Locals, program_inputs
from .vector import writer_for


def search_function(module, fname: str, pc) -> list[str]:
    """The public function of a search (and its private ones); raises Unprintable."""
    shape = Shape(module, pc)
    mn = module.ctx.main
    hardware = _hardware_function(module, fname, shape)
    row = _row_function(module, fname, shape)
    vector = None
    if module.numpy and shape.free is None:
        vector = vector_function(module, fname, shape)
    s = shape.search
    out = Out()
    out.call(f"def {fname}", module.signature(mn, shape.arguments, kinds=shape.fixed_kinds), " -> Choice:")
    out.push()
    doc(out, _docstring(module, shape))
    loc = Locals(mn.variables)
    module.begin(out)
    for kind in shape.fixed_kinds:  # a kind the search does not vary: its id is checked here, its values per hardware
        module.used.add("_entry_error")
        out.emit(f"if {kind} not in {kind.upper()}S:")
        out.call(f"{INDENT}raise _entry_error", [literal(kind), f"{kind.upper()}S", f"_TITLES[{literal(kind)}]", kind, "()"])
    _arguments(module, out, shape, loc)
    axes = [("tuple(GPUS)" if a.name == "gpu" else "tuple(LLMS)") if a.catalog and shape.whole_catalog(a) else tuple_text([literal(v) if a.catalog else number(v) for v in a.values]) for a in s.over]
    out.assign("_axes", tuple_text(axes) if axes else "()")
    out.emit("_configs = _configurations(_axes)")
    ids = [f"_c[{shape.axes.index(k)}]" if k in shape.axes else k for k in mn.kinds()]
    out.emit("_cache = {}")
    out.emit(f"_hardware = [_at_hardware(_cache, {hardware}, {tuple_text(ids) if ids else '()'}) for _c in _configs]")
    given = [loc[n] for n in shape.arguments]
    if vector is not None:
        out.call(f"_rows = {vector}", ["_configs", "_hardware", *given])
    else:
        out.emit("_rows = [None] * len(_configs)")
    out.emit("for _j, _c in enumerate(_configs):")
    out.push()
    if vector is not None:
        out.emit("if not isinstance(_rows[_j], tuple):  # a row the vectorised run left to the rule at one configuration")
        out.push()
    else:
        out.emit("_tick()")
    values = [loc[a.name] if not a.catalog else "_" for a in s.over]
    if any(v != "_" for v in values):
        out.emit(f"{', '.join(values) if len(values) > 1 else f'({values[0]},)'} = _c")
    args = ["_hardware[_j]", *(loc[n] for n in shape.row_arguments)]
    if shape.free is not None:
        name, lo, hi = shape.free
        at = 1 + shape.row_arguments.index(name)
        args[at] = "None"  # the free variable's place: _free_row puts each trial value there
        out.call("_rows[_j] = _free_row", [row, f"[{', '.join(args)}]", str(at), number(lo), number(hi), literal(s.goals[0].seek)])
        module.used.add("_free_row")
    elif vector is not None:
        out.call("_rows[_j] = _row_at", ["_rows[_j]", row, f"[{', '.join(args)}]"])
        module.used.add("_row_at")
    else:
        out.call(f"_rows[_j] = {row}", args)
    if vector is not None:
        out.pop()
    out.pop()
    out.call("_fields = _chosen", ["_configs", "_rows", "tuple(len(a) for a in _axes)", _about(shape)])
    out.emit("return Choice(**_fields)")
    module.used |= {"_configurations", "_at_hardware", "_tick", "_chosen"}
    return out.lines


def _arguments(module, out: Out, shape: Shape, loc: Locals) -> None:
    """Each argument in base units, checked as the solver checks a given value; None stays None (the default, per hardware)."""
    m = shape.model
    mn = module.ctx.main
    module.one_number = True  # the NumPy flavour's search takes one value per argument, too
    try:
        for n in shape.arguments:
            var, x = m.variables[n], loc[n]
            if n in shape.defaulted:
                out.emit(f"if {x} is not None:")
                out.push()
            module.convert(out, m, n, x)
            if not var.choices:
                scalar, module.numpy = module.numpy, False  # one number: the scalar check
                module.require(mn, out, n, x, '"given"')
                module.numpy = scalar
            if n in shape.defaulted:
                out.pop()
    finally:
        module.one_number = False


def _hardware_function(module, fname: str, shape: Shape) -> str:
    """`_hardware_<search>(gpu, llm)`: (titles, every parameter's value) on one hardware; raises where an entry lacks one."""
    ctx, mn = module.ctx, module.ctx.main
    name = ctx.private(f"hardware_{fname}")
    loc = Locals(mn.variables)
    out = Out()
    out.emit(f"def {name}({', '.join(mn.kinds())}):")
    out.push()
    doc(out, docstring_text(f"Search {comment(shape.search.name)} on one hardware: its titles, then every catalog and imported value it reads (base units)."))
    module.lookups(out, mn, loc, mn.kinds(), numpy=False)  # a value an entry lacks raises, in both flavours
    module.imported(out, mn, loc)
    titles = tuple_text([f"_TITLES[{literal(k)}].get({k}, {k})" for k in mn.kinds()]) if mn.kinds() else "()"
    out.call("return ", [titles, *(loc[p] for p in shape.params)], "", "(", ")" if shape.params else ",)")
    module.private.append(out.lines)
    return name


def _row_function(module, fname: str, shape: Shape) -> str:
    """`_config_<search>(hardware, inputs)`: one configuration's row, as choosing._at makes it."""
    ctx, mn = module.ctx, module.ctx.main
    m, s = shape.model, shape.search
    name = ctx.private(f"config_{fname}")
    loc = Locals(mn.variables)
    pr = writer_for(module.numpy).Printer(loc)
    out = Out()
    out.call(f"def {name}", ["_hw", *(loc[n] for n in shape.row_arguments)], ":")
    out.push()
    doc(
        out,
        docstring_text(
            f"Search {comment(s.name)} at one configuration (base units; None: the default): (inner answers, goals, what fails, why, shortfall, '').\n\n"
            "_hw: the hardware's titles and values (_hardware_...), or the ChainError that says it has none."
        ),
    )
    if module.numpy:
        out.emit('with np.errstate(all="ignore"):  # what fails is checked, as in the scalar flavour')
        out.push()
    out.emit("if isinstance(_hw, ChainError):  # the hardware lacks a value the model reads")
    out.emit(f'{INDENT}return ((), None, "no value", _hw.message, None, "")')
    if shape.params:
        unpack_value(out, ["_titles", *(loc[p] for p in shape.params)], "_hw")
    else:
        out.emit("(_titles,) = _hw")
    out.emit("_inner, _question = [], None")
    out.emit("try:")
    out.push()
    for n in shape.defaulted:
        x = loc[n]
        out.emit(f"if {x} is None:")
        out.push()
        out.assign(x, pr.code(default_expr(m, n)))
        _require_scalar(module, mn, out, n, x)
        out.pop()
    later = {n for _, _, _, inputs, *_ in shape.inner for n in inputs} & {v for v, *_ in shape.inner}
    for var in sorted(later):  # an inner question asked before a later one is answered reads that one's default, as the solver's does
        if m.variables[var].default is not None:
            out.assign(loc[var], pr.code(default_expr(m, var)))
    for var, q, fn, inputs, *_ in shape.inner:
        out.emit(f"_question = {literal(q)}")
        out.call(f"{loc[var]} = {fn}", [*(loc[n] for n in inputs), "_titles"])
        out.emit(f"_inner.append({loc[var]})")
    if shape.inner:
        out.emit("_question = None")
    fn = ctx.program(shape.program, f"solve_{mn.mid}", mn)
    names = [loc[n] if n in read(shape) else "_" for n in module.outputs_of(shape.program)]
    if any(n != "_" for n in names):
        from .layout import unpack

        unpack(out, names, fn, [loc[n] for n in program_inputs(shape.program)])
    else:
        out.call(fn, [loc[n] for n in program_inputs(shape.program)])
    out.pop()
    out.emit("except ChainError as e:")
    out.emit(f"{INDENT}return _unvalued(e, _question, _inner)")
    tests = []
    for label, text, cmp, guards in shape.pc.conditions:
        sides = f"_side({pr.code(cmp.left)}), _side({pr.code(cmp.right)})"
        if guards:
            fn_name = f"_sides_{len(tests)}"
            out.nested_def(f"def {fn_name}():")
            for div, when in guards:  # a division the condition writes, which SymPy may have cancelled
                zero = f"{pr.code(div, 6)} == 0"
                out.emit(f"if {zero if when == P.TRUE else f'{pr.code(when, 4)} and {zero}'}:")
                out.emit(f'{INDENT}raise ZeroDivisionError("division by zero")')
            out.emit(f"return {sides}")
            out.end_def()
            sides_fn = fn_name
        else:
            sides_fn = f"lambda: ({sides})"
        words = f"lambda _l, _r: (_said(_l, {side_label(m, cmp.left)}), {literal(P.NEGATED[cmp.op])}, _said(_r, {side_label(m, cmp.right)}))"
        tests.append(f"({literal(label)}, {literal(comment(text))}, {literal(cmp.op)}, {sides_fn}, {words})")
    goals = tuple_text([loc[g.name] for g in s.goals])
    if tests:
        out.call("_tests = ", tests, "", "[", "]")
        out.emit(f'return (tuple(_inner), {goals}, *_tested(_tests), "")')
        module.used |= {"_tested", "_said", "_side"}
    else:
        out.emit(f'return (tuple(_inner), {goals}, "", "", 0.0, "")')
    if module.numpy:
        out.pop()
    module.used |= pr.used | {"_unvalued"}
    module.private.append(out.lines)
    return name


def _require_scalar(module, mn, out: Out, n: str, x: str) -> None:
    scalar, module.numpy = module.numpy, False
    module.require(mn, out, n, x, '"default"')
    module.numpy = scalar


def _spec(m, name: str) -> str:
    v = m.variables[name]
    return f"({literal(name)}, {number(exact(v.factor))}, {v.domain.integer}, {literal(v.unit)})"


def _about(shape: Shape) -> str:
    """_chosen's description of the search: (question, rows shown, axes, inner unknowns, goals, seeks, free variable)."""
    m, s = shape.model, shape.search
    axes = [f"({literal(a.name)}, None, False, {literal('')})" if a.catalog else _spec(m, a.name) for a in s.over]
    inner = [_spec(m, v) for v, _ in s.inner] + ([_spec(m, shape.free[0])] if shape.free else [])
    goals = [_spec(m, g.name) for g in s.goals]
    seeks = tuple_text([literal(g.seek) for g in s.goals])
    return f"({literal(s.name)}, {s.show}, {tuple_text(axes) if axes else '()'}, {tuple_text(inner) if inner else '()'}, {tuple_text(goals)}, {seeks}, {optional_text(shape.free)})"


def optional_text(free) -> str:
    return "None" if free is None else literal(free[0])


def _docstring(module, shape: Shape) -> str:
    mn = module.ctx.main
    s, m = shape.search, shape.model
    axes = " x ".join(f"{a.name} ({_values_text(m, a)})" for a in s.over)
    what = s.ask or (f"The frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name}" if s.frontier else f"{s.goals[0].seek} {s.goals[0].name}")
    steps = (
        [f"{v} answered by question {q}" for v, q in s.inner]
        + (["the model solved"])
        + ([f"the conditions tested ({'; '.join(f'{c.label}: {c.text}' for c in s.conditions)})"] if s.conditions else [])
    )
    if shape.free:
        steps.append(f"{shape.free[0]} optimised over its range ({optional(shape.free[1])} .. {optional(shape.free[2])}, base units) by a scan and golden-section search")
    which = "the configurations that meet them" if s.conditions else "the configurations"
    rule = f"{which} ranked by {s.goals[0].seek} {s.goals[0].name} (ties: the first listed)" if not s.frontier else f"{which} that no other beats on both {s.goals[0].name} and {s.goals[1].name}"
    body = [f"{comment(what)}.", ""]
    body += textwrap.wrap(f"Every configuration of {axes or 'the search'}, as chainc's search runs it: " + ", ".join(steps) + f"; {rule}.", 110, break_on_hyphens=False, break_long_words=False)
    body += ["", "Args:", *(f"    {a}" for a in module.args_doc(mn, shape.arguments, kinds=shape.fixed_kinds)), "", "Returns:"]
    shown = f"the ranked table ({s.show} rows)" if not s.frontier else "the frontier's rows"
    body.append(f"    Choice: the best configuration with its values, {shown}, what binds, where the best sits, why each other configuration fails (display units).")
    body += ["", "Raises:", "    ChainError: an input outside its domain, or no configuration meets the conditions (the message names the closest and why)."]
    return "\n".join(docstring_text(b) for b in body)


def _values_text(m, axis) -> str:
    if axis.catalog:
        return ", ".join(axis.values) if len(axis.values) <= 8 else f"{len(axis.values)} entries"
    v = m.variables[axis.name]
    shown = [number(exact(x) / exact(v.factor)) for x in axis.values]
    return ", ".join(shown) if len(shown) <= 8 else f"{len(shown)} values from {shown[0]} to {shown[-1]}"
