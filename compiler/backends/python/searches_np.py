"""The NumPy flavour's search: every configuration at once, `_vector_<search>(_configs, _hardware, inputs)`.

It follows choosing._at over arrays: the rows whose hardware has every value, the defaults that
follow the hardware, each inner question by its vectorised rule (`_vector_<question>`,
questions_np.py), the model by its quiet program (vector.QuietProgramWriter), then the conditions'
sides. At each step the rows without a value (or without an inner answer) are dropped from the arrays;
the search function then runs `_config_<search>` at each of them only, so their words are the scalar
rule's. The rows that remain are tested by runtime.choose.tested on their numbers (choose_np.py).
"""

from __future__ import annotations

from ... import program as P
from .layout import INDENT, Out, doc, unpack
from .names import comment, docstring_text, domain_tuple, literal
from .search_shape import Unprintable, default_expr, read, side_label
from .statements import Locals, program_inputs
from .vector import writer_for


def vector_function(module, fname: str, shape) -> str:
    """Print `_vector_<search>`; returns its name."""
    ctx, mn = module.ctx, module.ctx.main
    m, s = shape.model, shape.search
    name = ctx.private(f"vector_{fname}")
    loc = Locals(mn.variables)
    pr = writer_for(True).Printer(loc)
    out = Out()
    out.call(f"def {name}", ["_configs", "_hw", *(loc[n] for n in shape.arguments)], ":")
    out.push()
    doc(
        out,
        docstring_text(
            f"Search {comment(s.name)} at every configuration at once (base units; None: the default): per row of the grid, its row "
            "where this run decides it, what fails (a str) where the rule at one configuration words why later, else None."
        ),
    )
    out.emit('with np.errstate(all="ignore"):  # a row that fails leaves the arrays, with what fails there')
    out.push()
    out.emit("_out = [None] * len(_configs)")
    out.emit("_i = np.array([_j for _j, _h in enumerate(_hw) if not isinstance(_h, ChainError)], dtype=int)  # the rows whose hardware has every value")
    rows: list[str] = []  # the locals that hold an array over the rows _i

    def undecided() -> None:
        out.emit("if not len(_i):")
        out.emit(f"{INDENT}return _out")

    def keep(test: str, why: str, first: bool = True) -> None:
        out.emit(f"_keep = np.broadcast_to({test}, _i.shape)  # {why}" if first else f"_keep = _keep & {test}  # {why}")

    def drop(label: str | None) -> None:  # the rows not kept leave every array, failing at label (None: the rule at one configuration decides them)
        if label is not None:
            out.emit(f"_dropped_np(_out, _i, _keep, {label})")
        out.emit("_i = _i[_keep]")
        unpack(out, rows, "_subset_np", ["_keep", *rows])
        undecided()

    undecided()
    params = [loc[p] for p in shape.params]
    if params:
        unpack(out, params, "_hardware_np", ["_hw", "_i", str(len(params))])
        rows += params
    for k, a in enumerate(s.over):
        if not a.catalog:
            out.emit(f"{loc[a.name]} = np.array([_configs[_j][{k}] for _j in _i], dtype=float)")
            rows.append(loc[a.name])
    if shape.defaulted:
        out.emit("_keep = np.ones(_i.shape, dtype=bool)")
    for n in shape.defaulted:
        x, d = loc[n], shape.program.domains[n]
        out.emit(f"if {x} is None:")
        out.push()
        out.emit(f"{x} = _over_np({pr.code(default_expr(m, n))}, len(_i))")
        whole = f" & (np.floor({x}) == {x})" if d.integer else ""
        keep(f"_admits_np({x}, *{domain_tuple(d)}){whole}", f"a default outside {n}'s domain", first=False)
        out.pop()
        rows.append(x)
    if shape.defaulted:
        drop('"no value"')
    later = {n for *_, inputs in shape.inner for n in (inputs or ())} & {v for v, *_ in shape.inner}
    for var in sorted(later):  # an inner question asked before a later one is answered reads that one's default, as the solver's does
        if m.variables[var].default is not None:
            out.emit(f"{loc[var]} = _over_np({pr.code(default_expr(m, var))}, len(_i))")
            rows.append(loc[var])
    for var, q, _, _, vector, inputs in shape.inner:
        if vector is None:
            raise Unprintable(f"search {s.name} (its question {q} has no vectorised rule)")
        out.call(f"_v, _codes = {vector}", [loc[n] for n in inputs])
        out.emit(f"{loc[var]} = _over_np(_v, len(_i))")
        rows.append(loc[var])
        out.emit(f"_dropped_np(_out, _i, (_codes != 1) & (_codes != 2), {literal(q)})  # no answer; where its condition raised, the rule at one configuration decides")
        keep("_codes == 0", f"the rows question {q} answers")
        drop(None)
    fn = ctx.program(shape.program, f"solve_{mn.mid}", mn, quiet=True)
    outputs = [loc[n] if n in read(shape) else "_" for n in module.outputs_of(shape.program)]
    unpack(out, [*outputs, "_bad"], fn, [*(loc[n] for n in program_inputs(shape.program)), "np.zeros(_i.shape, dtype=bool)"])
    rows += [o for o in outputs if o != "_"]
    keep("~_bad", "the rows the model has values at")
    drop('"no value"')
    conditions = []
    for k, (label, text, cmp, guards) in enumerate(shape.pc.conditions):
        left, right = f"_left{k}", f"_right{k}"
        out.emit(f"{left}, _ok_left = _side_np({pr.code(cmp.left)}, len(_i))")
        out.emit(f"{right}, _ok_right = _side_np({pr.code(cmp.right)}, len(_i))")
        zeros = []
        for div, when in guards:  # a division the condition writes, which SymPy may have cancelled: no value there
            zero = f"({pr.code(div, 6)} == 0)"
            zeros.append(zero if when == P.TRUE else f"np.logical_and({pr.code(when)}, {zero})")
        rows += [left, right]
        out.emit("_ok = _ok_left & _ok_right" + "".join(f" & ~{z}" for z in zeros))
        out.emit(f"_dropped_np(_out, _i, _ok | ~_keep, {literal(label)})  # the first condition without a value names the row" if conditions else f"_dropped_np(_out, _i, _ok, {literal(label)})")
        keep("_ok", f"the rows where condition {label} has a value", first=not conditions)
        words = f"lambda _l, _r: (_said(_l, {side_label(m, cmp.left)}), {literal(P.NEGATED[cmp.op])}, _said(_r, {side_label(m, cmp.right)}))"
        conditions.append(f"({literal(label)}, {literal(comment(text))}, {literal(cmp.op)}, {left}, {right}, {words})")
    if conditions:
        drop(None)
    inner = [loc[v] for v, *_ in shape.inner]
    goals = [loc[g.name] for g in s.goals]
    out.call("return _decided_np", ["_out", "_i", f"[{', '.join(inner)}]", f"[{', '.join(goals)}]", f"[{', '.join(conditions)}]"])
    module.used |= pr.used | {"np", "_decided_np", "_dropped_np", "_subset_np", "_over_np", "_admits_np", "_said"} | ({"_hardware_np"} if params else set()) | ({"_side_np"} if conditions else set())
    module.private.append(out.lines)
    return name
