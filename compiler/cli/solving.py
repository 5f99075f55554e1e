"""`chainc solve`: forward, backwards (--find) or a question; tables, JSON, or the derivation (--explain)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from .. import cache  # noqa: F401 - its clock starts before a model is read (an entry records files as they were then)
from ..backends.json_report import calibration_json, dumps, search_json, solution_json
from ..display import label
from ..errors import ArgumentError, ChaincError
from ..format import fmt
from ..numbers import display, in_unit
from ..project import Project
from ..results import Answer, Solution
from ..textout import plain
from .args import finds, givens, hardware, nonempty


def cmd_solve(args, project: Project, out: Console) -> int:
    nonempty(args, "gpu", "llm", "question", "find")
    hardware(project, args)
    given = givens(args.given)
    calibration = None
    if args.calibration is not None:
        from ..fit.calibration import given as calibrated
        from ..fit.calibration import load

        calibration = load(project, args.calibration)
        given = calibrated(project.model(args.model), calibration, given)
    warm = None if (args.no_cache or args.explain or args.sensitivity is not None or calibration) else _warm(project, args, given)
    if warm is not None:
        solution, answer = warm
        model, table = solution.model, None
    else:
        from ..api import ask, solve
        from ..api import query_of as query

        model = project.model(args.model)
        answer = None
        if args.question in model.searches:
            return _search(args, project, model, given, out)
        if args.question is not None:
            if args.find:
                raise ArgumentError("--question and --find do not go together", None, "a question says what it finds")
            answer = ask(model, args.question, given, gpu=args.gpu, llm=args.llm, project=project)
            solution = answer.solution
        else:
            solution = solve(model, given, finds(model, args.find), gpu=args.gpu, llm=args.llm, project=project)
        q = query(model, given, () if answer else tuple(args.find), args.gpu, args.llm)
        if not args.no_cache and calibration is None:  # the cache keys a solve by its --given names
            from ..remember import remember_solve

            remember_solve(project, args, model, q)
        table = _sensitivities(args, project, model, solution, answer, q) if args.sensitivity is not None else None
    from ..fit.calibration import of

    said = calibration_json(of(calibration, solution) if calibration else None)
    if args.json:
        data = solution_json(solution, answer)
        data.update(said)
        if table is not None:
            data["sensitivity"] = sensitivity_json(model, table)
        print(dumps(data))
        return 0
    _print_solution(out, solution, answer, args.explain, said["calibration_note"])
    if table is not None:
        _print_sensitivities(out, model, table, answer)
    return 0


def _search(args, project: Project, model, given: dict, out: Console) -> int:
    """A search over configurations: the best (or the frontier), the table; the model at the best one."""
    from ..api import ask
    from ..fit.calibration import IDEAL
    from .searching import print_chosen

    if args.find:
        raise ArgumentError("--question and --find do not go together", None, "a question says what it finds")
    chosen = ask(model, args.question, given, gpu=args.gpu, llm=args.llm, project=project)
    if args.json:
        data = solution_json(chosen.solution) if chosen.solution is not None else {"model": model.name}
        data["question"] = args.question
        data["search"] = search_json(chosen)
        print(dumps(data))
        return 0
    if chosen.solution is not None:
        _print_solution(out, chosen.solution, None, args.explain, IDEAL, chosen=frozenset(chosen.search.axes) | set(chosen.inner_names()))
    print_chosen(out, chosen)
    return 0


def _warm(project: Project, args, given: dict):
    """The answer from the plan cache, or None (not cached, or not a shape the warm path takes)."""
    if args.question is not None and args.find:
        return None
    from ..warm import solve as warm_solve

    try:
        hit = warm_solve(project, args, given)
    except ChaincError:
        raise  # the answer's own error, as the cold run gives it
    except Exception:  # noqa: BLE001 - an entry that verified but does not run: plan afresh, never a traceback
        return None
    if hit is not None and args.find:
        finds(hit[0].model, args.find)  # the same checks of --find as a cold run
    return hit


def _sensitivities(args, project: Project, model, solution: Solution, answer: Answer | None, q):
    from ..sensitivity import default_target, sensitivities

    target = args.sensitivity or None
    if answer is not None:
        if target and target != answer.question.find:
            raise ArgumentError(f"--sensitivity {target} with --question {answer.question.name}: a question's sensitivities are those of its answer", None, "drop the target, or drop --question")
        return sensitivities(model, project.catalog, q, question=answer.question.name)
    if target is None:
        target = default_target(model, solution)
    if target not in model.variables:
        raise ArgumentError(f"--sensitivity {target}: model '{model.name}' has no variable '{target}'", None, f"results: {', '.join(n for n in model.variables if n not in solution.known)}")
    if target in solution.known:
        raise ArgumentError(f"--sensitivity {target}: {target} is an input here", None, "name a computed result, or free it with --find")
    return sensitivities(model, project.catalog, q, target)


def sensitivity_json(model, table) -> dict:
    return {
        "target": table[0].target if table else None,
        "rows": [{"input": t.input, "value": t.value, "unit": model.variables[t.input].unit, "elasticity": t.elasticity, "method": t.method, "note": t.note} for t in table],
    }


def _print_sensitivities(out: Console, model, table, answer: Answer | None) -> None:
    if not table:
        return
    target = table[0].target
    what = f"the boundary of {answer.question.name} ({target})" if answer is not None else target
    out.print()
    out.print(Text.assemble(plain("sensitivity", "bold"), plain(f": what moves {what} most (elasticity: % change of {target} per 1% of the input)")))
    rt = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("input", "value", "unit", "elasticity", "how"):
        rt.add_column(col, justify="right" if col in ("value", "elasticity") else "left")
    for t in table:
        e = f"{t.elasticity:+.3f}" if t.elasticity is not None else "n/a"
        rt.add_row(plain(t.input), fmt(t.value), plain(model.variables[t.input].unit), e, plain(t.method + (f" ({t.note})" if t.note else "")))
    out.print(rt)


def _print_solution(out: Console, s: Solution, answer: Answer | None, explain: bool, calibration: str = "", chosen=frozenset()) -> None:
    m = s.model
    hardware = ", ".join(e.title for e in (s.gpu, s.llm) if e)
    out.print(Text.assemble(plain(m.title, "bold"), plain(f" ({m.name}{', ' + hardware if hardware else ''})")))
    if calibration:  # what the numbers are: an ideal roofline, or calibrated to measured runs
        out.print(plain(calibration))
    if explain:
        _explain(out, s)
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("", "name", "value", "unit", "description"):
        t.add_column(col, justify="right" if col == "value" else "left")
    warned = s.warnings
    for n, v in m.variables.items():
        kind = (
            "answer" if answer is not None and n == answer.question.find else "chosen" if n in chosen else "given" if n in s.given else "input" if n in s.known else "numeric" if n in s.numeric else ""
        )
        fails = [w.name for w in warned if n in w.affects]
        desc = Text.assemble(plain(f"[{', '.join(fails)} limit fails] ", "yellow"), plain(v.description)) if fails else plain(v.description)
        shown = label(s.values[n], v) if getattr(v, "choices", ()) else fmt(display(s.values[n], v.factor), v.digits)
        t.add_row(kind, plain(n), shown, plain(v.unit), desc)
    out.print(t)
    for w in warned:
        out.print(plain(f"\nwarning: {w.message}" + (f" ({w.about})" if w.about else "") + f"; these numbers describe no real machine (limit: {w.condition})", "yellow"))
    for name, rows in s.tables.items():
        table = m.tables[name]
        rt = RichTable(title=plain(f"table {name}: {table.about}"), title_justify="left", show_edge=False, box=None, pad_edge=False)
        rt.add_column("i", justify="right")
        for c in table.columns:
            rt.add_column(plain(f"{c.name}\n{c.unit}"), justify="right")
        for i, row in enumerate(rows, 1):
            rt.add_row(str(i), *[fmt(in_unit(row[c.name], c.factor)) for c in table.columns])
        out.print()
        out.print(rt)
    for note in s.notes:
        out.print(plain(f"\nnote: {note}", "yellow"))
    if s.numeric:
        out.print(plain(f"\nsolved numerically: {', '.join(sorted(s.numeric))} ({next(iter(s.numeric.values()))})"))
    if answer is not None:
        q = answer.question
        out.print()
        out.print(Text.assemble(plain(q.name, "bold"), plain(f": {q.ask or q.condition_text}")))
        out.print(plain(f"  {answer.sentence()}"))


def _explain(out: Console, s: Solution) -> None:
    """The derivation, step by step, as plain text: the same structure the LaTeX sheet prints."""
    from ..backends.text import text_lines

    out.print()
    for line in text_lines(s):
        out.print(plain(line, "bold" if line.startswith("step ") else ""))
