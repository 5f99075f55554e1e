"""The Excel backend, verified by LibreOffice: forced recalculation, live inputs, byte-identical builds.

One soffice call recalculates two copies of the workbook:
- 'stale': every formula's cached value replaced by a wrong number, so a cell that
  LibreOffice did not recompute fails the comparison;
- 'live': goodput's batch set to 128 and its GPU dropdown to h200, kv-ceiling's
  tokens_per_request to 4000; every result must follow.
Each formula cell that holds a chain variable, table cell, question, check,
sweep point or catalog derived value is compared with the compiler's own number.
"""

from __future__ import annotations

import io
import re
import time
import zipfile

import openpyxl
import pytest
import sympy as sp

from chainc import ask, solve
from chainc.backends import BuildOptions
from chainc.backends.excel import WORKBOOK, build, build_workbook
from chainc.compare import within
from chainc.solver import Evaluator
from chainc.sweep import run_sweep

from .tools import require

ERRORS = ("#NAME?", "#VALUE!", "#DIV/0!", "#REF!", "#N/A", "#NUM!", "#NULL!", "Err:")
TIMES: dict[str, float] = {}


def close(got, want, rel=1e-9) -> bool:
    if want is None or want == "":
        return got is None or got == ""
    if isinstance(want, bool) or isinstance(want, str):
        return got == want
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    return abs(got - want) <= rel * abs(want) + 1e-300 or (want == 0 and abs(got) < 1e-12)


def stale_copy(data: bytes) -> tuple[bytes, int]:
    """Every formula's cached value replaced by -12345: only a real recalculation gives the right numbers back."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    count = 0
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            d = src.read(info.filename)
            if info.filename.startswith("xl/worksheets/sheet"):
                d, k = re.subn(
                    rb'<c r="([A-Z]+[0-9]+)"((?: [a-z]+="[^"]*")*?)(?: t="(?:str|b|e)")?((?: [a-z]+="[^"]*")*)><f>([^<]*)</f><v>[^<]*</v></c>', rb'<c r="\1"\2\3><f>\4</f><v>-12345</v></c>', d
                )
                count += k
            dst.writestr(info, d)
    return out.getvalue(), count


@pytest.fixture(scope="module")
def books(project, tmp_path_factory):
    require("soffice")
    from chainc.backends.excel_recalc import recalculate

    tmp = tmp_path_factory.mktemp("xlsx")
    models = [project.model(n) for n in project.model_names()]
    t0 = time.perf_counter()
    data, manifest = build_workbook(project, models, BuildOptions(out=tmp))
    TIMES["build"] = time.perf_counter() - t0
    (tmp / "built.xlsx").write_bytes(data)
    stale, count = stale_copy(data)
    assert count > 1000
    (tmp / "stale.xlsx").write_bytes(stale)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for key, value in (((("goodput", "var", "batch")), 128), (("goodput", "select", "gpu"), "h200"), (("kv-ceiling", "var", "tokens_per_request"), 4000)):
        sheet, coord = manifest.cells[key]
        wb[sheet][coord] = value
    wb.save(tmp / "live.xlsx")
    t0 = time.perf_counter()
    outs = recalculate([tmp / "stale.xlsx", tmp / "live.xlsx"], tmp / "out")
    TIMES["recalc"] = time.perf_counter() - t0
    return {
        "data": data,
        "manifest": manifest,
        "models": models,
        "built": openpyxl.load_workbook(io.BytesIO(data), data_only=True),
        "formulas": openpyxl.load_workbook(io.BytesIO(data)),
        "stale": openpyxl.load_workbook(outs[0], data_only=True),
        "live": openpyxl.load_workbook(outs[1], data_only=True),
    }


def expected_cells(project, models, manifest, given=None, gpu=None) -> dict[tuple, object]:
    """manifest key -> the compiler's value (display units), computed here from solve/ask/run_sweep."""
    given, gpu = given or {}, gpu or {}
    want: dict[tuple, object] = {}
    solutions = {}
    for m in models:
        g = dict(given.get(m.name, {}))
        for _, other in m.imports:  # an imported value follows the other sheet
            for n, v in m.variables.items():
                p = v.default
                if p is not None and not p.is_number:
                    for s in p.free_symbols:
                        par = m.params.get(s.name)
                        if par is not None and dict(m.imports).get(par.source) == other and other in solutions:
                            g.setdefault(n, solutions[other].values[par.field_name])
        kw = {"gpu": gpu.get(m.name), "project": project}
        s = solve(m, g, **kw)
        solutions[m.name] = s
        for n in m.variables:
            want[(m.name, "var", n)] = s.display(n)
        for qn, q in m.questions.items():
            a = ask(m, qn, {k: v for k, v in g.items() if k != q.find}, **kw)
            want[(m.name, "question", qn)] = float(m.variables[q.find].to_display(a.value))
        for tname, t in m.tables.items():
            rows = s.tables[tname]
            want[(m.name, "rows", tname)] = len(rows)
            for key in manifest.cells:
                if key[:3] == (m.name, "table", tname):
                    _, _, _, col, i = key
                    c = next(c for c in t.columns if c.name == col)
                    want[key] = float(rows[i - 1][col] / c.factor) if i <= len(rows) else None
        for k, check in enumerate(m.checks):
            cg = {**g, **dict(check.given)}
            cs = solve(m, cg, **kw)
            for e in check.expect:
                var = m.variables[e.name]
                got = ask(m, check.question, {x: y for x, y in cg.items() if x != e.name}, **kw).value if check.question else cs.values[e.name]
                want[(m.name, "check", k, e.name)] = float(var.to_display(got))
                want[(m.name, "status", k, e.name)] = "OK" if within(got, e.value, e.abs_tol, e.rel_tol) else "FAIL"
            if check.that is not None:
                rel = check.that.replace(lambda x: isinstance(x, sp.Eq), lambda x: sp.Le(sp.Abs(x.lhs - x.rhs), sp.Rational(1, 10**9) * sp.Abs(x.rhs)))
                holds = bool(Evaluator(m, cs.values)(rel))
                want[(m.name, "that", k)] = holds
                want[(m.name, "status", k, "that")] = "OK" if holds else "FAIL"
        for sw in m.sweeps.values():
            r = run_sweep(m, sw, project, gpu=gpu.get(m.name), given={k: v for k, v in g.items() if k != sw.over})
            for n, ys in r.series.items():
                for i, y in enumerate(ys):
                    want[(m.name, "sweep", sw.name, n, i)] = y
            if sw.reference:
                for i in range(len(r.xs)):
                    want[(m.name, "sweep", sw.name, sw.reference, i)] = r.reference
    for kind in ("gpu", "llm"):
        for e in project.catalog.entries(kind):
            for n, f in project.catalog.fields[kind].items():
                v = e.values.get(n)
                want[("catalog", kind, e.id, n)] = None if v is None else float(v / f.factor)
    return want


def compare(wb, manifest, want) -> tuple[int, list[str]]:
    wrong, n = [], 0
    for key, value in want.items():
        if key not in manifest.cells:
            if key[1] == "status":
                continue
            wrong.append(f"{key}: not in the workbook")
            continue
        sheet, coord = manifest.cells[key]
        got = wb[sheet][coord].value
        n += 1
        if not close(got, value):
            wrong.append(f"{key} {sheet}!{coord}: LibreOffice {got!r}, compiler {value!r}")
    return n, wrong


def error_cells(wb) -> list[str]:
    return [f"{ws.title}!{c.coordinate}={c.value}" for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith(ERRORS)]


def test_recalculated_workbook_matches_the_compiler(project, books):
    want = expected_cells(project, books["models"], books["manifest"])
    n, wrong = compare(books["stale"], books["manifest"], want)
    assert not wrong, "\n".join(wrong[:40])
    assert n > 1500
    assert not error_cells(books["stale"])
    # every formula cell of the workbook was verified (or is a check's status / a chart marker / a table note)
    formulas = {(ws.title, c.coordinate) for ws in books["formulas"].worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"}
    verified = {books["manifest"].cells[k] for k in want if k in books["manifest"].cells}
    rest = formulas - verified
    stale = books["stale"]
    for sheet, coord in rest:
        v = stale[sheet][coord].value
        assert v not in (-12345, "-12345"), f"{sheet}!{coord} was not recalculated"
    print(f"\nverified {n} cells ({len(verified & formulas)} formula cells of {len(formulas)}); build {TIMES['build']:.2f} s, LibreOffice {TIMES['recalc']:.2f} s")


def test_status_cells_follow_the_checks(project, books):
    want = expected_cells(project, books["models"], books["manifest"])
    statuses = {k: v for k, v in want.items() if k[1] == "status"}
    wb, man = books["stale"], books["manifest"]
    for key, value in statuses.items():
        m, _, k, name = key
        cell_key = (m, "that", k) if name == "that" else (m, "check", k, name)
        sheet, coord = man.cells[cell_key]
        row = int(re.sub(r"[A-Z]+", "", coord))
        assert wb[sheet][f"F{row}"].value == value, key


def test_cached_values_are_the_compilers(project, books):
    """Viewers that do not recalculate see the compiler's numbers: the cached values written by the build."""
    want = expected_cells(project, books["models"], books["manifest"])
    n, wrong = compare(books["built"], books["manifest"], want)
    assert not wrong, "\n".join(wrong[:40])


def test_live_inputs_and_dropdowns(project, books):
    live, man = books["live"], books["manifest"]
    want = expected_cells(project, books["models"], man, given={"goodput": {"batch": 128}, "kv-ceiling": {"tokens_per_request": 4000}}, gpu={"goodput": "h200"})
    n, wrong = compare(live, man, want)
    assert not wrong, "\n".join(wrong[:40])
    assert not error_cells(live)
    # the changes really moved the numbers
    h200 = solve(project.model("goodput"), {"batch": 128}, gpu="h200", project=project)
    sheet, coord = man.cells[("goodput", "var", "tpot")]
    assert close(live[sheet][coord].value, h200.display("tpot"))
    assert not close(live[sheet][coord].value, solve(project.model("goodput"), project=project).display("tpot"))
    kv = solve(project.model("kv-ceiling"), {"tokens_per_request": 4000}, project=project)
    sheet, coord = man.cells[("kv-ceiling", "var", "max_arrival_rate")]
    assert close(live[sheet][coord].value, kv.display("max_arrival_rate"))


def test_question_is_a_formula_and_rounds(books):
    wb, man = books["formulas"], books["manifest"]
    sheet, coord = man.cells[("goodput", "question", "max_batch")]
    f = wb[sheet][coord].value
    assert f.startswith("=INT(") and "goodput_tpot_target" in f and "goodput_bandwidth" in f
    sheet, coord = man.cells[("p99-knee", "question", "max_utilization")]
    assert "INT(" in wb[sheet][coord].value


def test_catalog_derived_columns_are_formulas(project, books):
    wb, man = books["formulas"], books["manifest"]
    for e in project.catalog.entries("llm"):
        for n in ("weight_bytes", "kv_bytes_per_token", "head_dim", "active_params", "linear_flops_per_token", "attention_flops_per_pair"):
            sheet, coord = man.cells[("catalog", "llm", e.id, n)]
            assert str(wb[sheet][coord].value).startswith("="), (e.id, n)
        sheet, coord = man.cells[("catalog", "llm", e.id, "layers")]
        assert isinstance(wb[sheet][coord].value, int)
    sheet, coord = man.cells[("catalog", "gpu", "a100-sxm-80gb", "flops_fp8")]
    assert wb[sheet][coord].value is None
    names = wb.defined_names
    assert "gpu_ids" in names and "llm_ids" in names and "llm_weight_bytes" in names


def test_workbook_structure(project, books):
    wb = books["formulas"]
    assert wb.sheetnames[:2] == ["Cover", "Catalog"]
    assert set(project.model_names()) <= set(wb.sheetnames)
    ws = wb["goodput"]
    assert ws.protection.sheet
    sheet, coord = books["manifest"].cells[("goodput", "var", "batch")]
    assert ws[coord].protection.locked is False
    sheet, coord = books["manifest"].cells[("goodput", "var", "tpot")]
    assert ws[coord].protection.locked is not False
    dvs = ws.data_validations.dataValidation
    assert any(dv.formula1 == "gpu_ids" for dv in dvs) and any(dv.formula1 == "llm_ids" for dv in dvs)
    assert ws.conditional_formatting
    cover = wb["Cover"]
    links = [c.hyperlink.location for row in cover.iter_rows() for c in row if c.hyperlink]
    assert "'goodput'!A1" in links and "'hol-blocking'!A1" in links
    texts = " ".join(str(c.value) for row in cover.iter_rows() for c in row if c.value)
    assert "models/goodput.yaml" in texts and "hardware" in texts and "chainc 0.1.0" in texts
    # the import is a reference to the other chain's named cell
    sheet, coord = books["manifest"].cells[("kv-ceiling", "var", "in_system")]
    assert wb[sheet][coord].value == "=littles_law_in_system"
    sheet, coord = books["manifest"].cells[("long-prompt", "var", "decode_tpot")]
    assert wb[sheet][coord].value == "=goodput_tpot"


def test_tables_blank_past_the_row_count(books):
    wb, man = books["stale"], books["manifest"]
    sheet, coord = man.cells[("hol-blocking", "table", "fcfs", "clock", 6)]
    assert wb[sheet][coord].value in (None, "")
    sheet, coord = man.cells[("hol-blocking", "table", "fcfs", "clock", 5)]
    assert isinstance(wb[sheet][coord].value, float)
    f = books["formulas"]
    sheet, coord = man.cells[("long-prompt", "table", "steps", "clock", 2)]
    assert f[sheet][coord].value.startswith("=IF($A")


def test_sweep_chart(books):
    ws = books["formulas"]["goodput"]
    # openpyxl does not read charts back: look at the drawing part
    z = zipfile.ZipFile(io.BytesIO(books["data"]))
    charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) >= 2
    xml = b"".join(z.read(n) for n in charts)
    assert b'scatterStyle val="lineMarker"' in xml and b'smooth val="0"' in xml and b'smooth val="1"' not in xml
    assert b"tpot_target" in xml or ws is not None


def test_same_inputs_same_bytes(project, tmp_path):
    models = [project.model(n) for n in project.model_names()]
    a, _ = build_workbook(project, models, BuildOptions(out=tmp_path))
    b, _ = build_workbook(project, models, BuildOptions(out=tmp_path))
    assert a == b


def test_build_writes_one_workbook(project, tmp_path):
    paths = build(project, [project.model("goodput"), project.model("kv-ceiling")], "xlsx", BuildOptions(out=tmp_path))
    assert paths == [tmp_path / WORKBOOK]
    wb = openpyxl.load_workbook(paths[0])
    # kv-ceiling imports littles-law: its sheet comes too
    assert {"goodput", "kv-ceiling", "littles-law"} <= set(wb.sheetnames)
    assert "hol-blocking" not in wb.sheetnames
    assert [p.name for p in tmp_path.iterdir()] == [WORKBOOK]


def test_text_is_never_a_formula(project, tmp_path):
    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    import shutil

    shutil.copytree(project.root / "hardware", root / "hardware")
    (root / "models" / "evil.yaml").write_text(
        'name: evil\ntitle: "=HYPERLINK(\\"http://x\\",\\"click\\")"\nabout: "+1+1"\n'
        'variables:\n  a:\n    value: 2\n    description: "=1+1"\n  b:\n    description: "@SUM(A1:A2)"\n  c:\n    description: "-2+3"\n'
        "equations:\n  - b = 2 * a\n  - c = b + 1\n"
    )
    from chainc import Project

    p = Project(root)
    data, man = build_workbook(p, [p.model("evil")], BuildOptions(out=tmp_path))
    wb = openpyxl.load_workbook(io.BytesIO(data))
    ws = wb["evil"]
    texts = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value[:1] in "=+-@" and c.data_type != "f"]
    values = {c.value for c in texts}
    assert {"=1+1", "@SUM(A1:A2)", "-2+3", "+1+1"} <= values
    assert ws["A1"].data_type == "s" and ws["A1"].value.startswith("=HYPERLINK")
    formulas = [c.value for row in ws.iter_rows() for c in row if c.data_type == "f"]
    assert not any("HYPERLINK" in f or "SUM(A1" in f for f in formulas)
    assert all(c.quotePrefix for c in texts)


SEEK = """name: seek
title: No closed form
about: SymPy cannot invert min(), so c is found numerically, and so is the question's boundary.
variables:
  a:
    value: 3
    description: an input
  x:
    description: a + min(a, 2)
  b:
    value: 5
    description: another input
  c:
    description: solves b = c + min(c, 2)
  d:
    description: twice c
equations:
  - x = a + min(a, 2)
  - b = c + min(c, 2)
  - d = 2 * c
questions:
  max_a:
    ask: the largest a with x at most 9.5
    find: a
    such_that: x <= 9.5
    seek: max
    step: 1
checks:
  - about: "c = 3"
    expect: {c: 3}
  - about: "at b = 7, c = 5"
    given: {b: 7}
    expect: {c: 5, d: 10}
"""


def test_no_closed_form_is_a_fixed_value_with_goal_seek(project, tmp_path):
    import shutil

    from chainc import Project

    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    shutil.copytree(project.root / "hardware", root / "hardware")
    (root / "models" / "seek.yaml").write_text(SEEK)
    p = Project(root)
    m = p.model("seek")
    data, man = build_workbook(p, [m], BuildOptions(out=tmp_path))
    ws = openpyxl.load_workbook(io.BytesIO(data))["seek"]
    _, c = man.cells[("seek", "var", "c")]
    _, d = man.cells[("seek", "var", "d")]
    _, q = man.cells[("seek", "question", "max_a")]
    assert ws[c].data_type == "n" and ws[c].value == 3 and "Goal Seek" in ws[c].comment.text
    assert ws[d].value == "=2*seek_c"  # downstream of the fixed value: still a formula
    assert ws[q].value == 7 and "Goal Seek" in ws[q].comment.text
    texts = " ".join(str(x.value) for row in ws.iter_rows() for x in row if isinstance(x.value, str))
    assert "Goal Seek: set cell" in texts and "by changing cell" in texts  # visible, not only in a comment
    residual = next(r for r in ws.iter_rows() if str(r[0].value).startswith("residual"))
    assert residual[1].value == "=seek_b-seek_c-MIN(2,seek_c)"
    assert (ws.title, c) in man.fixed and (ws.title, q) in man.fixed
