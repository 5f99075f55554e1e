"""Program statements as Python: one private function per Program, printed statement by statement.

`ProgramWriter` prints the scalar flavour: an assignment (in a try block where it can
raise, so the error names the equation), a domain check as a plain comparison, a
pick among closed forms, a table as a loop over its rows, a numeric block as a
trial function handed to the bracketed root finder. `vector.py` overrides what
differs over NumPy arrays. The function takes the Program's inputs (base units)
and returns its outputs in solving order, then each table's rows.
"""

from __future__ import annotations

from dataclasses import replace

from ... import program as P
from .exprs import Gap, ScalarPrinter, may_be_complex, may_fail
from .layout import INDENT, LINE, Out, doc, targets, tuple_text
from .names import BODY_NAMES, Names, domain_tuple, literal, number, optional, set_values

FAILURES = "(ArithmeticError, ValueError, TypeError)"


class Locals:
    """Program names (variables, 'gpu.x' parameters, 't.col' columns, aggregates) -> local identifiers."""

    def __init__(self, variables: dict[str, str], reserved=()):
        self.names = dict(variables)
        self.alloc = Names(BODY_NAMES | set(variables.values()) | set(reserved))

    def __getitem__(self, name: str) -> str:
        if name not in self.names:
            self.names[name] = self.alloc.take(name.replace(".", "_"), "v")
        return self.names[name]

    def __contains__(self, name: str) -> bool:
        return True  # every program name gets a local; the program refers only to what it computed before

    def bind(self, name: str, preferred: str) -> str:
        """A fresh local for a name that lives inside one expression (a sum's index); `unbind` ends it."""
        self.names[name] = self.alloc.take(preferred, "k")
        return self.names[name]

    def unbind(self, name: str) -> None:
        del self.names[name]


class ProgramWriter:
    """Prints one Program as `def <fname>(inputs) -> outputs` in the scalar flavour."""

    Printer = ScalarPrinter
    real = "_real"  # the check that a value is a real number
    eager = False  # every branch of a choice is evaluated (np.where), so any part of it can move into a temporary

    def __init__(self, program: P.Program, fname: str, variables: dict[str, str], gaps: list, about: str):
        self.program = program
        self.fname = fname
        self.names = Locals(variables)
        self.pr = self.Printer(self.names)
        self.gaps = gaps  # (construct, Site) of what could not be printed
        self.about = about
        self.used: set[str] = set()  # runtime helpers and modules the function calls
        self.temps = 0
        self.rows: dict[str, str] = {}  # table -> the local holding its rows
        self.read = reads(program.body) | set(program.outputs)  # what the current scope reads (a search's trial has its own)

    # --- the function ------------------------------------------------------------------------------------

    def inputs(self) -> list[str]:
        return program_inputs(self.program)

    def write(self) -> list[str]:
        out = Out()
        args = [self.names[n] for n in self.inputs()]
        results = [self.names[n] for n in self.program.outputs]
        out.call(f"def {self.fname}", args, ":")
        out.push()
        doc(out, self.about)
        self.body(out, self.program.body)
        results += [self.rows[t] for t in self.program.tables if t in self.rows]
        out.call("return ", results, "", "(", ",)" if len(results) == 1 else ")")
        self.used |= self.pr.used
        return out.lines

    def outputs(self) -> list[str]:
        """What the function returns, in order: program names, then 'rows:<table>' for each table's rows."""
        return [*self.program.outputs, *(f"rows:{t}" for t in self.program.tables if t in self.rows)]

    def body(self, out: Out, body) -> None:
        for s in body:
            method = getattr(self, f"_print_{type(s).__name__}", None)
            try:
                if method is None:
                    raise Gap(f"the statement {type(s).__name__}")
                method(out, s)
            except Gap as g:
                self.gaps.append((g.construct, getattr(s, "site", None)))

    # --- expressions that may be too long for a line --------------------------------------------------------

    def assign(self, out: Out, target: str, e, real: str | None = None) -> None:
        """`target = e` (checked real and finite as `real` when it may be complex), split into temporaries if too long."""
        for _ in range(64):
            text = self.pr.code(e)
            if real is not None:
                text = f"{self.real}({text}, {literal(real)})"
                self.used.add(self.real)
            if len(out.indent) + len(target) + 3 + len(text) <= LINE:
                break
            hoisted = self.hoist(out, e)
            if hoisted is None:
                if isinstance(e, P.Choice) and not self.eager:  # branches are evaluated lazily: an if statement
                    return self.branches(out, target, e, real)
                if isinstance(e, P.Logic) and e.op in ("and", "or") and len(e.args) > 1 and not self.eager:  # so is the rest of and/or
                    return self.short_circuit(out, target, e)
                break
            e = hoisted
        out.emit(f"{target} = {text}")

    def short_circuit(self, out: Out, target: str, e: P.Logic) -> None:
        """`t = a and b` as `t = a` then `if t: t = b` (`if not t:` for or): the same value, evaluated as lazily."""
        self.assign(out, target, e.args[0])
        depth = 0
        for arg in e.args[1:]:
            out.emit(f"if {'' if e.op == 'and' else 'not '}{target}:")
            out.push()
            depth += 1
            self.assign(out, target, arg)
        for _ in range(depth):
            out.pop()

    def branches(self, out: Out, target: str, e: P.Choice, real: str | None) -> None:
        *pieces, (last, _) = e.pieces
        for k, (value, cond) in enumerate(pieces):
            out.emit(f"{'if' if k == 0 else 'elif'} {self.pr.code(cond)}:")
            out.push()
            self.assign(out, target, value, real)
            out.pop()
        out.emit("else:")
        out.push()
        self.assign(out, target, last, real)
        out.pop()

    def hoist(self, out: Out, e):
        """Move e's longest child that is always evaluated into a temporary; None when there is none."""
        kids = _hoistable(e, self.eager)
        kids = [(len(self.pr.code(k)), i, k) for i, k in kids if not isinstance(k, (P.Ref, P.Num, P.Const))]
        if not kids:
            return None
        _, index, child = max(kids, key=lambda t: (t[0], -t[1]))
        self.temps += 1
        temp = f"_t{self.temps}"
        self.names.names[temp] = temp
        self.assign(out, temp, child)
        return _replace_child(e, index, P.Ref(temp))

    def guarded(self, out: Out, fails: bool, error: tuple[str, list[str]], emit) -> None:
        """Statements that may raise, in a try block that re-raises them as error = (helper, arguments) of e."""
        if not fails:
            emit()
            return
        out.emit("try:")
        out.push()
        emit()
        out.pop()
        out.emit(f"except {FAILURES} as e:")
        out.push()
        out.call(f"raise {error[0]}", error[1], " from None")
        out.pop()

    # --- statements --------------------------------------------------------------------------------------------

    def _print_Assign(self, out: Out, s: P.Assign) -> None:
        target = self.names[s.name]
        complex_ = may_be_complex(s.expr)
        fails = may_fail(s.expr) or complex_
        if fails:
            self.used.add("_failed")
        error = ("_failed", ["e", literal(s.name), literal(s.site.what)])
        self.guarded(out, fails, error, lambda: self.assign(out, target, s.expr, s.name if complex_ else None))

    def _print_Check(self, out: Out, s: P.Check) -> None:
        d = self.program.domains[s.name]
        x = self.names[s.name]
        self.used.add("_outside")
        out.emit(f"if not {self.in_domain(x, d)}:")
        out.push()
        out.call("raise _outside", [x, number(d.factor), literal(s.name), literal(d.unit), literal(d.text), literal(s.site.what)])
        out.pop()

    def in_domain(self, x: str, d: P.Domain) -> str:
        """`0 < x < math.inf` and the like: runtime.values.admits for a finite value, as one chained comparison."""
        self.used.add("math")
        low = {"positive": "0 <", "nonnegative": "0 <=", "real": "-math.inf <"}[d.kind]
        if d.lo is not None and (d.kind == "real" or d.lo > 0 or (d.kind == "nonnegative" and d.lo == 0)):
            low = f"{number(d.lo)} <="
        high = f"<= {number(d.hi)}" if d.hi is not None else "< math.inf"
        if d.values is not None:
            self.used.add("_member")
            return f"({low} {x} {high} and _member({x}, {set_values(d)}))"  # parenthesised: it follows `not`
        return f"{low} {x} {high}"

    def _print_Guard(self, out: Out, s: P.Guard) -> None:
        divisor = self.pr.code(s.divisor, 6)
        test = f"{divisor} == 0" if s.when == P.TRUE else f"{self.pr.code(s.when, 4)} and {divisor} == 0"
        message = [literal(x) for x in P.guard_words(s)[:2]]
        if may_fail(s.divisor) or may_fail(s.when):
            out.emit("try:")
            out.emit(f"{INDENT}_zero = {test}")
            out.emit(f"except {FAILURES}:")
            out.emit(f"{INDENT}_zero = False  # the value itself fails, and says so where it is computed")
            test = "_zero"
        out.emit(f"if {test}:")
        out.push()
        out.call("raise ChainError", message)
        out.pop()

    def _print_Pick(self, out: Out, s: P.Pick) -> None:
        out.emit("_options = []")
        for cand in s.candidates:
            values = [self.pr.code(e) for e in cand]
            item = f"({values[0]},)" if len(values) == 1 else f"({', '.join(values)})"
            if any(may_fail(e) or may_be_complex(e) for e in cand):
                out.emit("try:")
                out.push()
                out.call("_options.append", [item])
                out.pop()
                out.emit(f"except {FAILURES}:")
                out.emit(f"{INDENT}_options.append(None)")
            else:
                out.call("_options.append", [item])
        domains = [self.domain_tuple(n) for n in s.names]
        self.used.add("_pick")
        out.call(f"{targets([self.names[n] for n in s.names])} = _pick", ["_options", literal(", ".join(s.names)), f"[{', '.join(domains)}]", literal(s.site.what)])

    def domain_tuple(self, name: str) -> str:
        return domain_tuple(self.program.domains[name])

    def _print_Loop(self, out: Out, s: P.Loop) -> None:
        t = s.table
        n = self.names[f"count:{t}"]
        rows = self.rows[t] = self.names[f"rows:{t}"]
        read = set().union(*(P.refs(e) for c in s.columns for e in (c.expr, *(x for g in c.guards for x in (g.divisor, g.when)))))
        failing = any(may_fail(c.expr) or may_be_complex(c.expr) or c.guards for c in s.columns)
        index = self.names[f"{t}.i"] if f"{t}.i" in read or failing else "_"
        self.used |= {"_rows", "_failed"}
        self.guarded(
            out, True, ("_failed", ["e", literal("the row count"), literal(s.site.what)]), lambda: out.call(f"{n} = _rows", [self.pr.code(s.rows), literal(t), literal(s.rows_text), str(s.max_rows)])
        )
        prev = [c for c in s.columns if f"{t}.prev.{c.name}" in read]
        for c in prev:
            out.emit(f"{self.names[f'{t}.prev.{c.name}']} = {self.pr.code(c.initial)}")
        out.emit(f"{rows} = []")
        out.emit(f"for {index} in range(1, {n} + 1):")
        out.push()
        for c in s.columns:
            self.column(out, s, c, index)
        cells = [self.names[f"{t}.{c.name}"] for c in s.columns]
        out.call(f"{rows}.append", [f"({cells[0]},)" if len(cells) == 1 else f"({', '.join(cells)})"])
        for c in prev:
            out.emit(f"{self.names[f'{t}.prev.{c.name}']} = {self.names[f'{t}.{c.name}']}")
        out.pop()
        self.aggregates(out, s, rows)

    def column(self, out: Out, s: P.Loop, c: P.Column, index: str) -> None:
        target = self.names[f"{s.table}.{c.name}"]
        complex_ = may_be_complex(c.expr)
        fails = may_fail(c.expr) or complex_ or bool(c.guards)
        if fails:
            self.used.add("_failed_row")

        def emit():
            self.assign(out, target, c.expr, c.name if complex_ else None)
            for g in c.guards:
                test = f"{self.pr.code(g.divisor, 6)} == 0" if g.when == P.TRUE else f"{self.pr.code(g.when, 4)} and {self.pr.code(g.divisor, 6)} == 0"
                out.emit(f"if {test}:")
                out.emit(f"{INDENT}raise ZeroDivisionError")

        self.guarded(out, fails, ("_failed_row", ["e", index, literal(c.name), literal(c.site.what)]), emit)

    def aggregates(self, out: Out, s: P.Loop, rows: str) -> None:
        cols = [c.name for c in s.columns]
        for name, kind, col in s.aggregates:
            self.used.add("_aggregate")
            what = f"{kind}({s.table}.{col})" if col else f"count({s.table})"
            values = f"[_r[{cols.index(col)}] for _r in {rows}]" if col else rows
            target = f"{self.names[name]} = " if name in self.read else ""  # an aggregate nothing reads is still checked
            out.call(f"{target}_aggregate", [literal(kind), values, literal(what)])

    def _print_Search(self, out: Out, s: P.Search) -> None:
        if len(s.tears) != 1:
            raise Gap(f"a numeric block of {len(s.tears)} unknowns ({', '.join(s.tears)}) solved jointly")
        tear = s.tears[0]
        d = self.program.domains[tear]
        self.temps += 1
        trial = f"_trial{self.temps}"
        made = [n for n in _assigned(s.body) if n in self.read]
        outer, self.read = self.read, reads(s.body) | set().union(*(P.refs(r) for r in s.residuals)) | set(made)
        inner = [self.names[n] for n in made]
        out.nested_def(f"def {trial}({self.names[tear]}):")
        saved, self.rows = self.rows, dict(self.rows)
        self.body(out, s.body)
        self.read = outer
        rows_made = {t: r for t, r in self.rows.items() if t not in saved or saved[t] != r}
        inner += list(rows_made.values())
        residual = self.pr.residual(s.residuals[0]) if s.residuals else "0"
        out.call("return ", [residual, tuple_text(inner) if inner else "()"], "", "(", ")")
        out.end_def()
        start = "None" if s.starts[0] is None else self.pr.code(s.starts[0])
        if s.starts[0] is not None and may_fail(s.starts[0]):
            out.emit("try:")
            out.emit(f"{INDENT}_start = {start}")
            out.emit(f"except {FAILURES}:")
            out.emit(f"{INDENT}_start = None")
            start = "_start"
        self.used.add("_search")
        out.call(
            f"{self.names[tear]} = _search",
            [trial, start, number(d.factor), literal(d.kind), optional(d.lo), optional(d.hi), literal(tear), literal(d.unit), literal(s.site.what), *(["True"] if tear in s.whole else [])],
        )
        if inner:
            out.call(f"_, {tuple_text(inner)} = {trial}", [self.names[tear]])
        self.rows.update(rows_made)


# --- helpers over the program's nodes -------------------------------------------------------------------------


def program_inputs(program: P.Program) -> list[str]:
    """The inputs a program reads (its function's parameters), in the program's order."""
    read: set[str] = set()
    for s in P.statements(program.body):
        for e in _expressions(s):
            read |= P.refs(e)
    return [n for n in program.inputs if n in read]


def _expressions(s) -> list:
    if isinstance(s, P.Assign):
        return [s.expr]
    if isinstance(s, P.Guard):
        return [s.divisor, s.when]
    if isinstance(s, P.Pick):
        return [e for c in s.candidates for e in c]
    if isinstance(s, P.Search):
        return [*s.residuals, *(x for x in s.starts if x is not None), *(e for x in s.body for e in _expressions(x))]
    if isinstance(s, P.Loop):
        return [s.rows, *(e for c in s.columns for e in (c.expr, c.initial, *(x for g in c.guards for x in (g.divisor, g.when))))]
    return []


def reads(body) -> set[str]:
    """The names a body of statements reads in its own scope (a search's body and residuals are its trial's)."""
    out: set[str] = set()
    for s in body:
        if isinstance(s, P.Search):
            out |= set().union(*(P.refs(x) for x in s.starts if x is not None))
        else:
            out |= set().union(*(P.refs(e) for e in _expressions(s)))
        if isinstance(s, P.Check):
            out.add(s.name)
    return out


def _assigned(body) -> list[str]:
    """Every program name a body of statements sets, in order (a search's final trial hands them back)."""
    out: list[str] = []
    for s in body:
        if isinstance(s, P.Assign):
            out.append(s.name)
        elif isinstance(s, P.Pick):
            out += list(s.names)
        elif isinstance(s, P.Loop):
            out += [name for name, _, _ in s.aggregates]
        elif isinstance(s, P.Search):
            out += [*s.tears, *_assigned(s.body)]
    return list(dict.fromkeys(out))


def _hoistable(e, eager: bool) -> list[tuple[int, object]]:
    """(index, child) of the children of e evaluated whenever e is (not a lazy branch, unless `eager`)."""
    if isinstance(e, (P.Add, P.Mul, P.Call)):
        return list(enumerate(e.args))
    if isinstance(e, P.Pow):
        return [(0, e.base), (1, e.exp)]
    if isinstance(e, P.Cmp):
        return [(0, e.left), (1, e.right)]
    if isinstance(e, P.Logic) and e.args:
        return list(enumerate(e.args)) if eager else [(0, e.args[0])]
    if isinstance(e, P.Choice) and e.pieces:
        flat = [x for piece in e.pieces for x in piece]
        return list(enumerate(flat)) if eager else [(1, flat[1])]
    return []


def _replace_child(e, index: int, new):
    if isinstance(e, (P.Add, P.Mul, P.Call)):
        args = list(e.args)
        args[index] = new
        return replace(e, args=tuple(args))
    if isinstance(e, P.Pow):
        return P.Pow(new, e.exp) if index == 0 else P.Pow(e.base, new)
    if isinstance(e, P.Cmp):
        return P.Cmp(e.op, new, e.right) if index == 0 else P.Cmp(e.op, e.left, new)
    if isinstance(e, P.Logic):
        args = list(e.args)
        args[index] = new
        return P.Logic(e.op, tuple(args))
    flat = [x for piece in e.pieces for x in piece]
    flat[index] = new
    return P.Choice(tuple(zip(flat[::2], flat[1::2])))
