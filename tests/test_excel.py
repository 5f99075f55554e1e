"""The Excel backend, verified by LibreOffice: forced recalculation, live inputs, the question rule, same bytes.

One soffice call recalculates three copies of the workbook:
- 'stale': every formula's cached value replaced by a wrong number, so a cell that
  LibreOffice did not recompute fails the comparison;
- 'live': goodput's batch set to 128 and its GPU dropdown to h200, kv-ceiling's
  tokens_per_request to 4000; every result must follow, as the solver says;
- 'infeasible': goodput's LLM dropdown set to llama-3.3-70b, whose weights alone
  take longer than the TPOT target: max_batch must be #N/A with the solver's reason.
Every cell that holds a Report number is compared with it at 1e-9, and every other
formula cell (the workings) with the cached value the backend wrote.
"""

from __future__ import annotations

import dataclasses
import io
import re
import shutil
import time
import zipfile
from fractions import Fraction

import openpyxl
import pytest
from openpyxl.utils import column_index_from_string

from chainc import Project, ask, solve
from chainc import program as P
from chainc.backends import BuildOptions
from chainc.backends.excel import WORKBOOK, ExcelPrintError, build, build_workbook
from chainc.backends.excel.checks import _parts, _unit
from chainc.backends.excel.layout import PRINT_SCALE
from chainc.build import reports_for
from chainc.errors import ChaincError
from chainc.numbers import exact
from chainc.report import evaluate
from chainc.run import evaluate as run_evaluate

from .tools import require

ERRORS = ("#NAME?", "#VALUE!", "#DIV/0!", "#REF!", "#N/A", "#NUM!", "#NULL!", "Err:")
TIMES: dict[str, float] = {}


def close(got, want, rel=1e-9) -> bool:
    if want is None or want == "":
        return got is None or got == ""
    if isinstance(want, (bool, str)):
        return got == want
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    # LibreOffice rounds a difference within 2^-48 of its operands to 0, where Python keeps a residue of 1e-17
    return abs(got - want) <= rel * abs(want) + 1e-300 or (abs(want) < 1e-12 and abs(got) < 1e-12)


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
                    rb'<c r="([A-Z]+[0-9]+)"((?: [a-z]+="[^"]*")*?)(?: t="(?:str|b|e)")?((?: [a-z]+="[^"]*")*)>(<f(?: [a-z]+="[^"]*")*>)([^<]*)</f><v>[^<]*</v></c>',
                    rb'<c r="\1"\2\3>\4\5</f><v>-12345</v></c>',
                    d,
                )
                count += k
            dst.writestr(info, d)
    return out.getvalue(), count


def all_reports(project):
    return reports_for(project, project.model_names(), BuildOptions(out=project.root / "exports"))


@pytest.fixture(scope="module")
def books(project, tmp_path_factory):
    require("soffice")
    from .excel_recalc import recalculate

    tmp = tmp_path_factory.mktemp("xlsx")
    reports, catalog = all_reports(project)
    t0 = time.perf_counter()
    data, manifest = build_workbook(reports, catalog)
    TIMES["build"] = time.perf_counter() - t0
    stale, count = stale_copy(data)
    assert count > 1000
    (tmp / "stale.xlsx").write_bytes(stale)
    for name, changes in (
        ("live", ((("goodput", "input", "batch"), 128), (("goodput", "select", "gpu"), "h200"), (("kv-ceiling", "input", "tokens_per_request"), 4000), (("long-prompt", "input", "peak_flops"), 900))),
        ("infeasible", ((("goodput", "select", "llm"), "llama-3.3-70b"),)),
        ("overflow", ((("hol-blocking", "input", "long_prompt"), 100000),)),
    ):
        wb = openpyxl.load_workbook(io.BytesIO(data))
        for key, value in changes:
            sheet, coord = manifest.cells[key]
            wb[sheet][coord] = value
        wb.save(tmp / f"{name}.xlsx")
    t0 = time.perf_counter()
    outs = recalculate([tmp / f"{n}.xlsx" for n in ("stale", "live", "infeasible", "overflow")], tmp / "out")
    TIMES["recalc"] = time.perf_counter() - t0
    return {
        "data": data,
        "manifest": manifest,
        "reports": reports,
        "catalog": catalog,
        "built": openpyxl.load_workbook(io.BytesIO(data), data_only=True),
        "formulas": openpyxl.load_workbook(io.BytesIO(data)),
        "stale": openpyxl.load_workbook(outs[0], data_only=True),
        "live": openpyxl.load_workbook(outs[1], data_only=True),
        "infeasible": openpyxl.load_workbook(outs[2], data_only=True),
        "overflow": openpyxl.load_workbook(outs[3], data_only=True),
    }


def disp(q, v) -> float:
    return float(Fraction(v) / Fraction(q.factor.p, q.factor.q)) if not isinstance(v, float) else v / float(q.factor)


class Factors:
    """What the checks' unit choice asks of a chain: each variable's display factor."""

    def __init__(self, model):
        self.model = model

    def factor(self, name: str) -> Fraction:
        return exact(self.model.variables[name].factor)


def that_parts(check) -> list:
    return [p for p, _ in _parts(check)]


def part_holds(part, values) -> bool:
    if isinstance(part, P.Cmp) and part.op == "==":
        a, b = run_evaluate(part.left, values), run_evaluate(part.right, values)
        return a == b or abs(a - b) <= abs(b) / 10**9
    return bool(run_evaluate(part, values))


def report_cells(reports, catalog, manifest) -> dict[tuple, object]:
    """manifest key -> the Report's number (display units)."""
    want: dict[tuple, object] = {}
    for r in reports:
        m, s = r.model, r.solution
        for n, v in m.variables.items():
            want[(m.name, "var", n)] = disp(v, s.values[n])
        for qn, a in r.answers.items():
            want[(m.name, "question", qn)] = "#N/A" if isinstance(a, ChaincError) else disp(m.variables[a.question.find], a.base)
        for tname, t in m.tables.items():
            rows = s.tables[tname]
            want[(m.name, "rows", tname)] = len(rows)
            cols = {c.name: c for c in t.columns}
            for key in manifest.cells:
                if key[:3] == (m.name, "table", tname):
                    _, _, _, col, i = key
                    want[key] = disp(cols[col], rows[i - 1][col]) if i <= len(rows) else None
        for k, o in enumerate(r.checks):
            for e in o.expected:  # a search's chosen catalog entry is its id
                want[(m.name, "check", k, e.name)] = e.got if isinstance(e.got, str) else disp(m.variables[e.name], e.got)
                want[(m.name, "status", k, e.name)] = "OK" if e.ok else "FAIL"
            if o.that_ok is not None:
                parts = that_parts(o.check)
                for j, part in enumerate(parts):
                    holds = part_holds(part, o.solution.values)
                    want[(m.name, "status", k, "that" if len(parts) == 1 else f"that{j + 1}")] = "OK" if holds else "FAIL"
                for j, part in enumerate(parts):
                    if isinstance(part, P.Cmp):  # the left side, in the unit the row shows
                        _, f = _unit(m, Factors(m), part)
                        want[(m.name, "that", k, j)] = float(Fraction(run_evaluate(part.left, o.solution.values)) / f)
        for sw in r.sweeps.values():
            for n, ys in sw.series.items():
                for i, y in enumerate(ys):
                    want[(m.name, "sweep", sw.sweep.name, n, i)] = y
            if sw.sweep.reference:
                for i in range(len(sw.xs)):
                    want[(m.name, "sweep", sw.sweep.name, sw.sweep.reference, i)] = sw.reference
    for kind, pairs in catalog.entries.items():
        for e, values in pairs:
            for n, f in catalog.fields[kind].items():
                v = values.get(n)
                want[("catalog", kind, e.id, n)] = None if v is None else float(Fraction(v) / Fraction(f.factor.p, f.factor.q))
    return want


def compare(wb, manifest, want) -> tuple[int, list[str]]:
    wrong, n = [], 0
    for key, value in want.items():
        if key not in manifest.cells:
            wrong.append(f"{key}: not in the workbook")
            continue
        sheet, coord = manifest.cells[key]
        got = wb[sheet][coord].value
        n += 1
        if not close(got, value):
            wrong.append(f"{key} {sheet}!{coord}: LibreOffice {got!r}, compiler {value!r}")
    return n, wrong


def error_cells(wb, manifest) -> list[str]:
    """Cells that show an error. On a search's sheet, the rows of its configurations and their workings may: a
    configuration where an entry lacks a value, or no inner answer exists, has none (the solver says so too, and
    test_excel_searches compares those rows with it); so may a chart's data beside the printed columns (#N/A
    leaves a point out). What prints above the rows, its answer, ranking and table, may not."""
    grid = {}  # sheet -> the first row of its configurations
    for key, (sheet, coord) in manifest.cells.items():
        if key[1] == "search" and key[3:5] == ("row", 0):
            grid[sheet] = min(grid.get(sheet, 10**9), int(re.sub(r"[A-Z$]", "", coord)))

    def shown(ws, c) -> bool:
        if ws.title not in grid:
            return True
        last = column_index_from_string(re.findall(r"\$?([A-Z]+)\$?\d+", str(ws.print_area))[-1])
        return c.row < grid[ws.title] and c.column <= last

    return [f"{ws.title}!{c.coordinate}={c.value}" for ws in wb.worksheets for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith(ERRORS) and shown(ws, c)]


def formula_cells(wb) -> set:
    return {(ws.title, c.coordinate) for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"}


def test_recalculated_workbook_matches_the_report(books):
    want = report_cells(books["reports"], books["catalog"], books["manifest"])
    n, wrong = compare(books["stale"], books["manifest"], want)
    assert not wrong, "\n".join(wrong[:40])
    assert n > 1500
    assert not error_cells(books["stale"], books["manifest"])
    # every other formula cell was recomputed too, to the value the backend cached
    formulas = formula_cells(books["formulas"])
    verified = {books["manifest"].cells[k] for k in want}
    rest = formulas - verified
    differ = [
        f"{s}!{c}: LibreOffice {books['stale'][s][c].value!r}, cached {books['built'][s][c].value!r}" for s, c in sorted(rest) if not close(books["stale"][s][c].value, books["built"][s][c].value)
    ]
    assert not differ, "\n".join(differ[:40])
    print(f"\nverified {n} Report cells and {len(rest)} other formula cells of {len(formulas)}; build {TIMES['build']:.2f} s, LibreOffice {TIMES['recalc']:.2f} s")


def test_cached_values_are_the_reports(books):
    """Viewers that do not recalculate see the compiler's numbers: the cached values written by the build."""
    want = report_cells(books["reports"], books["catalog"], books["manifest"])
    _, wrong = compare(books["built"], books["manifest"], want)
    assert not wrong, "\n".join(wrong[:40])


def live_expected(project, manifest) -> dict[tuple, object]:
    """The solver's numbers for the live copy: goodput on h200 at batch 128, kv-ceiling at 4,000 tokens per request, long-prompt at 900 TFLOP/s."""
    changes = {"goodput": ({"batch": 128}, "h200"), "kv-ceiling": ({"tokens_per_request": 4000}, None), "long-prompt": ({"peak_flops": 900}, None)}
    want: dict[tuple, object] = {}
    solved: dict = {}
    for name in ("littles-law", "goodput", "kv-ceiling", "long-prompt", "p99-knee", "hol-blocking"):
        m = project.model(name)
        given, gpu = changes.get(name, ({}, None))
        given = dict(given)
        for alias, other in m.imports:  # an imported value follows the other sheet
            for n, v in m.variables.items():
                if v.default is not None and not v.default.is_number:
                    for s in v.default.free_symbols:
                        p = m.params.get(s.name)
                        if p is not None and p.source == alias and other.name in solved:
                            given.setdefault(n, solved[other.name].values[p.field_name])
        s = solve(m, given, gpu=gpu, project=project)
        solved[name] = s
        for n in m.variables:
            want[(name, "var", n)] = s.value(n)
        for qn, q in m.questions.items():
            a = ask(m, qn, {k: v for k, v in given.items() if k != q.find}, gpu=gpu, project=project)
            want[(name, "question", qn)] = disp(m.variables[q.find], a.base)
        for tname in m.tables:
            want[(name, "rows", tname)] = len(s.tables[tname])
        r = evaluate(m, project.catalog, gpu=gpu, given={k: v for k, v in given.items() if k not in {sw.over for sw in m.sweeps.values()}})
        for sw in r.sweeps.values():
            for n, ys in sw.series.items():
                for i, y in enumerate(ys):
                    want[(name, "sweep", sw.sweep.name, n, i)] = y
    return want


def test_live_inputs_and_dropdowns(project, books):
    live, man = books["live"], books["manifest"]
    n, wrong = compare(live, man, live_expected(project, man))
    assert not wrong, "\n".join(wrong[:40])
    assert not error_cells(live, man)
    h200 = solve(project.model("goodput"), {"batch": 128}, gpu="h200", project=project)
    sheet, coord = man.cells[("goodput", "var", "tpot")]
    assert close(live[sheet][coord].value, h200.value("tpot"))
    assert not close(live[sheet][coord].value, solve(project.model("goodput"), project=project).value("tpot"))
    sheet, coord = man.cells[("goodput", "question", "max_batch")]
    assert live[sheet][coord].value == 118
    # a typed value is used; the catalog default stays beside it, and comes back when the typed value is cleared
    sheet, coord = man.cells[("long-prompt", "var", "peak_flops")]
    assert live[sheet][coord].value == 900
    sheet, coord = man.cells[("long-prompt", "default", "peak_flops")]
    assert close(live[sheet][coord].value, 989) and books["formulas"][sheet][coord].value.startswith("=INDEX(gpu_flops_bf16,")
    sheet, coord = man.cells[("goodput", "default", "bandwidth")]
    assert close(live[sheet][coord].value, 4.8)  # the h200's, from the dropdown
    sheet, coord = man.cells[("goodput", "message", "max_batch")]
    assert live[sheet][coord].value == "batch = 118: floor of the boundary 118.984 to steps of 1"


def test_an_infeasible_question_shows_its_reason(project, books):
    """llama-3.3-70b's weights alone take 42 ms per step: no batch meets 10 ms, and the workbook says so, never a number."""
    wb, man = books["infeasible"], books["manifest"]
    with pytest.raises(ChaincError) as e:
        ask(project.model("goodput"), "max_batch", llm="llama-3.3-70b", project=project)
    sheet, coord = man.cells[("goodput", "question", "max_batch")]
    assert wb[sheet][coord].value == "#N/A"
    sheet, coord = man.cells[("goodput", "message", "max_batch")]
    assert wb[sheet][coord].value == e.value.message
    assert "no batch meets tpot <= tpot_target: at batch = 1, tpot = 42.3219 ms/token > tpot_target = 10 ms/token" in wb[sheet][coord].value
    sheet, coord = man.cells[("goodput", "var", "tpot")]  # the rest of the sheet still computes
    assert close(wb[sheet][coord].value, solve(project.model("goodput"), llm="llama-3.3-70b", project=project).value("tpot"))


def test_a_workbook_built_where_the_question_is_infeasible(project, tmp_path):
    """Built for llama-3.3-70b, the question is live all the same: #N/A and the reason, cached."""
    reports, catalog = reports_for(project, ["goodput"], BuildOptions(out=tmp_path, llm="llama-3.3-70b"))
    data, man = build_workbook(reports, catalog)
    wb = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    sheet, coord = man.cells[("goodput", "question", "max_batch")]
    assert wb[sheet][coord].value == "#N/A"
    sheet, coord = man.cells[("goodput", "message", "max_batch")]
    assert wb[sheet][coord].value == reports[0].answers["max_batch"].message
    f = openpyxl.load_workbook(io.BytesIO(data))[sheet]
    assert f[man.cells[("goodput", "question", "max_batch")][1]].value.startswith("=IF(")


def test_the_question_follows_the_rule(books):
    wb, man = books["formulas"], books["manifest"]
    sheet, coord = man.cells[("goodput", "question", "max_batch")]
    ws = wb[sheet]
    assert re.fullmatch(r"=IF\(\$B\$\d+>0,\$B\$\d+,NA\(\)\)", ws[coord].value)
    labels = {str(c.value) for row in ws.iter_rows(max_col=1) for c in row}
    assert {"delta", "x1", "x2", "case", "steps", "one step back", "outcome", "probe 0", "probe 4", "has a boundary"} <= labels
    row = int(coord[1:])
    folded = [r for r, d in ws.row_dimensions.items() if d.hidden and d.outlineLevel == 1]
    assert folded and min(folded) > row + 1
    stale = books["stale"]
    sheet, coord = man.cells[("p99-knee", "question", "max_utilization")]
    assert close(stale[sheet][coord].value, 0.69)
    sheet, coord = man.cells[("p99-knee", "message", "max_utilization")]
    assert stale[sheet][coord].value.startswith("utilization = 0.69: floor of the boundary 0.69375")


def test_catalog_derived_columns_are_formulas(books):
    wb, man, catalog = books["formulas"], books["manifest"], books["catalog"]
    for e, _ in catalog.entries["llm"]:
        assert {"weight_bytes", "kv_bytes_per_token", "active_params", "linear_flops_per_token", "attention_flops_per_pair"} <= set(e.derived)
        for n in e.derived:  # what the entry derives (head_dim too, unless config.json gives it, as Qwen3's does)
            sheet, coord = man.cells[("catalog", "llm", e.id, n)]
            assert str(wb[sheet][coord].value).startswith("="), (e.id, n)
        sheet, coord = man.cells[("catalog", "llm", e.id, "layers")]
        assert isinstance(wb[sheet][coord].value, int)
    sheet, coord = man.cells[("catalog", "gpu", "a100-sxm-80gb", "flops_fp8")]
    assert wb[sheet][coord].value is None
    names = wb.defined_names
    assert "gpu_ids" in names and "llm_ids" in names and "llm_weight_bytes" in names


def test_workbook_structure(project, books):
    wb, man = books["formulas"], books["manifest"]
    assert wb.sheetnames[:2] == ["Cover", "Catalog"]
    assert set(project.model_names()) <= set(wb.sheetnames)
    ws = wb["goodput"]
    assert ws.protection.sheet
    assert ws[man.cells[("goodput", "input", "batch")][1]].protection.locked is False
    assert ws[man.cells[("goodput", "var", "batch")][1]].protection.locked is not False  # the value used: typed, else the default
    assert ws[man.cells[("goodput", "var", "tpot")][1]].protection.locked is not False
    dvs = ws.data_validations.dataValidation
    assert any(dv.formula1 == "gpu_ids" for dv in dvs) and any(dv.formula1 == "llm_ids" for dv in dvs)
    assert any(dv.type == "whole" and dv.formula1 == "1" for dv in dvs)  # batch: a positive integer, at least 1
    assert ws.conditional_formatting
    cover = wb["Cover"]
    links = [c.hyperlink.location for row in cover.iter_rows() for c in row if c.hyperlink]
    assert "'goodput'!A1" in links and "'hol-blocking'!A1" in links
    texts = " ".join(str(c.value) for row in cover.iter_rows() for c in row if c.value)
    assert "models/goodput.yaml" in texts and "hardware" in texts and "chainc 0.1.0" in texts
    # an imported value is a reference to the other chain's named cell
    sheet, coord = man.cells[("kv-ceiling", "default", "in_system")]
    assert wb[sheet][coord].value == "=littles_law_in_system"
    sheet, coord = man.cells[("long-prompt", "default", "decode_tpot")]
    assert wb[sheet][coord].value == "=goodput_tpot"
    sheet, coord = man.cells[("long-prompt", "var", "decode_tpot")]
    row = coord[1:]
    # the typed value when there is one, if it lies in its domain (positive): else #N/A
    assert wb[sheet][coord].value == f'=IF($D{row}="",$E{row},IF(IF(ISNUMBER($D{row}),$D{row}>0,FALSE),$D{row},NA()))'
    sheet, coord = man.cells[("goodput", "var", "throughput")]
    row = coord[1:]
    # a positive value: its formula in hidden column N (the units folded into one coefficient), the cell #N/A outside the domain
    assert wb[sheet][f"N{row}"].value == "=1000*goodput_batch/goodput_tpot"
    assert wb[sheet][coord].value == f"=IF($N{row}>0,$N{row},NA())"
    assert wb[sheet].column_dimensions["N"].hidden


def test_tables_blank_past_the_row_count(books):
    wb, man = books["stale"], books["manifest"]
    sheet, coord = man.cells[("hol-blocking", "table", "fcfs", "clock", 6)]
    assert wb[sheet][coord].value in (None, "")
    sheet, coord = man.cells[("hol-blocking", "table", "fcfs", "clock", 5)]
    assert isinstance(wb[sheet][coord].value, float)
    f = books["formulas"]
    sheet, coord = man.cells[("long-prompt", "table", "steps", "clock", 2)]
    assert f[sheet][coord].value.startswith("=IF($A")


def test_tables_are_laid_out_to_the_rows_they_use(books):
    """hol-blocking uses 5 rows of each table: 9 are laid out; a 100,000-token prompt needs 13, and the sheet says so."""
    man, stale, over = books["manifest"], books["stale"], books["overflow"]
    assert ("hol-blocking", "table", "fcfs", "clock", 9) in man.cells and ("hol-blocking", "table", "fcfs", "clock", 10) not in man.cells
    sheet, coord = man.cells[("hol-blocking", "rows note", "fcfs")]
    assert stale[sheet][coord].value == "9 rows laid out, room for 4 more; rows past the count are blank"
    assert over[sheet][coord].value == "the inputs need 13 rows and 9 are laid out: the totals show #N/A (build the workbook again from these inputs)"
    sheet, coord = man.cells[("hol-blocking", "var", "fcfs_long_ttft")]
    assert over[sheet][coord].value == "#N/A"  # never a sum of the rows that happen to fit
    sheet, coord = man.cells[("hol-blocking", "rows", "fcfs")]
    assert over[sheet][coord].value == 13


def test_sweep_chart(books):
    z = zipfile.ZipFile(io.BytesIO(books["data"]))
    charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) >= 2
    xml = b"".join(z.read(n) for n in charts)
    assert b'scatterStyle val="lineMarker"' in xml and b'smooth val="0"' in xml and b'smooth val="1"' not in xml
    sheet, coord = books["manifest"].cells[("goodput", "sweep", "batch", "throughput", 9)]
    assert books["formulas"][sheet][coord].value.startswith("=1000*$A")


def test_same_inputs_same_bytes(project):
    reports, catalog = all_reports(project)
    assert build_workbook(reports, catalog)[0] == build_workbook(reports, catalog)[0]


def test_build_writes_one_workbook(project, tmp_path):
    reports, catalog = reports_for(project, ["goodput", "kv-ceiling"], BuildOptions(out=tmp_path))
    paths = build(reports, catalog, "xlsx", BuildOptions(out=tmp_path))
    assert paths == [tmp_path / WORKBOOK]
    wb = openpyxl.load_workbook(paths[0])
    assert {"goodput", "kv-ceiling", "littles-law"} <= set(wb.sheetnames)  # kv-ceiling imports littles-law
    assert "hol-blocking" not in wb.sheetnames
    assert [p.name for p in tmp_path.iterdir()] == [WORKBOOK]


def small_project(project, tmp_path, name: str, text: str) -> Project:
    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    shutil.copytree(project.root / "hardware", root / "hardware")
    (root / "models" / f"{name}.yaml").write_text(text)
    return Project(root)


def test_text_is_never_a_formula(project, tmp_path):
    p = small_project(
        project,
        tmp_path,
        "evil",
        'name: evil\ntitle: "=HYPERLINK(\\"http://x\\",\\"click\\")"\nabout: "+1+1"\n'
        'variables:\n  a:\n    value: 2\n    description: "=1+1"\n  b:\n    description: "@SUM(A1:A2)"\n  c:\n    description: "-2+3"\n'
        "equations:\n  - b = 2 * a\n  - c = b + 1\n",
    )
    data, _ = build_workbook(*reports_for(p, ["evil"], BuildOptions(out=tmp_path)))
    ws = openpyxl.load_workbook(io.BytesIO(data))["evil"]
    texts = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value[:1] in "=+-@" and c.data_type != "f"]
    assert "+1+1" in {c.value for c in texts}
    assert ws["A1"].data_type == "s" and ws["A1"].value.startswith("=HYPERLINK")
    formulas = [c.value for row in ws.iter_rows() for c in row if c.data_type == "f"]
    # a description is a string literal of its domain-reason formula: text, never a formula
    literals = [lit.replace('""', '"') for f in formulas for lit in re.findall(r'"((?:[^"]|"")*)"', f)]
    assert {"=1+1", "@SUM(A1:A2)", "-2+3"} <= set(literals)
    code = [re.sub(r'"(?:[^"]|"")*"', '""', f) for f in formulas]
    assert not any("HYPERLINK" in f or "SUM(A1" in f for f in code)
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
    p = small_project(project, tmp_path, "seek", SEEK)
    data, man = build_workbook(*reports_for(p, ["seek"], BuildOptions(out=tmp_path)))
    # the build says where the workbook cannot follow the inputs: located, at the question
    assert any(re.match(r".*seek\.yaml:\d+:\d+: note: the workbook's seek!B\d+ \(max_a\) is the build's answer and does not follow the inputs: ", t) for t in man.notes), man.notes
    ws = openpyxl.load_workbook(io.BytesIO(data))["seek"]
    _, c = man.cells[("seek", "var", "c")]
    _, d = man.cells[("seek", "var", "d")]
    _, q = man.cells[("seek", "question", "max_a")]
    assert ws[c].data_type == "n" and ws[c].value == 3 and "Goal Seek" in ws[c].comment.text
    assert ws["N" + d[1:]].value == "=2*seek_c"  # downstream of the fixed value: still a formula (before its domain check)
    assert ws[q].value == 7 and "numeric search" in ws[q].comment.text
    texts = " ".join(str(x.value) for row in ws.iter_rows() for x in row if isinstance(x.value, str))
    assert "Goal Seek: set cell" in texts and "by changing cell" in texts  # visible, not only in a comment
    residual = next(r for r in ws.iter_rows() if str(r[0].value).startswith("residual"))
    assert residual[1].value.startswith("=") and "MIN(" in residual[1].value
    assert (ws.title, c) in man.fixed and (ws.title, q) in man.fixed
    _, check = man.cells[("seek", "check", 1, "c")]  # the check at b = 7 has no live formula either
    assert (ws.title, check) in man.fixed and ws[check].value == 5


LAMBERT = """name: lambert
title: A closed form through LambertW
about: a = b exp(b) has the closed form b = W(a), which Excel has no function for.
variables:
  a:
    value: 2
    description: the product
  b:
    description: the solution of a = b exp(b)
  c:
    description: b squared
equations:
  - a = b * exp(b)
  - c = b * b
"""


def test_lambertw_is_a_labelled_number(project, tmp_path):
    p = small_project(project, tmp_path, "lambert", LAMBERT)
    reports, catalog = reports_for(p, ["lambert"], BuildOptions(out=tmp_path, find=("b",), given={"a": "3"}))
    assert "custom" in reports[0].queries
    data, man = build_workbook(reports, catalog)
    ws = openpyxl.load_workbook(io.BytesIO(data))["lambert"]
    values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)["lambert"]
    for key, want in ((("lambert", "var", "b"), reports[0].solution.values["b"]), (("lambert", "custom", "b"), reports[0].queries["custom"].values["b"])):
        _, coord = man.cells[key]
        assert (ws.title, coord) in man.fixed and "Lambert W" in ws[coord].comment.text
        assert "NOTE: Excel has no Lambert W function" in ws[f"D{coord[1:]}"].value  # visible, not only in a comment
        assert close(ws[coord].value, want)
    _, coord = man.cells[("lambert", "var", "c")]
    assert ws["N" + coord[1:]].value == "=lambert_b^2"  # downstream: a formula (before its domain check)
    assert close(values[coord].value, reports[0].solution.values["c"])
    _, coord = man.cells[("lambert", "custom", "c")]
    assert ws["N" + coord[1:]].value == "=lambert_custom_b^2"


def test_unprintable_constructs_are_one_located_error(project):
    """Everything the printer cannot write is collected into one error at the first construct's place: no traceback."""
    reports, catalog = reports_for(project, ["tenant-cost"], BuildOptions(out=project.root))
    r = reports[0]
    body = list(r.solution.program.body)
    first = next(k for k, s in enumerate(body) if isinstance(s, P.Assign))
    a = body[first]
    body[first] = dataclasses.replace(a, expr=P.Add((a.expr, P.Mul((P.Const("I"), P.Ref("input_a"))))))
    last = max(k for k, s in enumerate(body) if isinstance(s, P.Assign))
    body[last] = dataclasses.replace(body[last], expr=P.Pow(P.Num(Fraction(-8)), P.Num(Fraction(1, 3))))
    program = dataclasses.replace(r.solution.program, body=tuple(body))
    broken = dataclasses.replace(r, solution=dataclasses.replace(r.solution, program=program))
    with pytest.raises(ExcelPrintError) as e:
        build_workbook([broken], catalog)
    err = e.value
    assert isinstance(err, ChaincError) and isinstance(err, ValueError)
    assert err.loc == a.site.loc and err.loc.line > 0
    assert "xlsx" in err.message and "the constant I" in err.message and "a negative number to a fractional power" in err.message
    assert a.site.what in err.message and body[last].site.what in err.message
    assert err.render().startswith(f"{a.site.loc}: error: the Excel backend (xlsx) cannot print")


def test_checks_elsewhere_are_references(project, books):
    """The card's numbers are for the model's own hardware: on h200 a check shows the card's value as a reference, never FAIL."""
    live, man = books["live"], books["manifest"]
    statuses = {key: live[s][c].value for key, (s, c) in man.cells.items() if key[1] == "status"}
    moved = {k: v for k, v in statuses.items() if k[0] in ("goodput", "long-prompt")}  # long-prompt reads goodput's sheet
    assert moved and set(moved.values()) == {"reference"}, moved
    sheet, coord = man.cells[("goodput", "checks note")]
    assert live[sheet][coord].value == "the expected values (card) are for NVIDIA H100 SXM5 80GB with Llama 3.1 8B: on this hardware they are a reference, not a check"
    assert books["stale"][sheet][coord].value.endswith("(they are for NVIDIA H100 SXM5 80GB with Llama 3.1 8B)")
    sheet, coord = man.cells[("goodput", "check", 1, "tpot")]  # the card's value stays beside the live one
    assert live[sheet][f"C{coord[1:]}"].value == 9.9 and close(live[sheet][coord].value, solve(project.model("goodput"), {"batch": 128}, gpu="h200", project=project).value("tpot"))
    kv = {k: v for k, v in statuses.items() if k[0] == "kv-ceiling"}  # its own hardware, another input: it holds or fails
    assert set(kv.values()) <= {"OK", "FAIL"} and "FAIL" in kv.values()


def test_the_workbook_prints(project, books, tmp_path):
    """Printed by LibreOffice: no '###' (every number fits its column), the folded workings and chart points left out."""
    tools = require("soffice", "pdftotext", "pdfinfo")
    import subprocess

    from .excel_recalc import convert

    (tmp_path / "chains.xlsx").write_bytes(books["data"])
    (pdf,) = convert([tmp_path / "chains.xlsx"], tmp_path / "pdf", target="pdf")
    text = subprocess.run([tools["pdftotext"], "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run([tools["pdfinfo"], str(pdf)], capture_output=True, text=True, check=True).stdout).group(1))
    assert "###" not in text
    assert "probe 0" not in text and "chart helpers" not in text  # folded and hidden rows do not print
    assert "batch = 64: floor of the boundary 64.9671 to steps of 1" in text
    sheets = books["formulas"].sheetnames
    # at >= 8 pt (test_excel_print.py) a long sheet takes two pages down, and one too wide for a page prints at
    # layout.PRINT_SCALE on two pages across (the new chains' probe and check rows are wide): at most 4 pages a sheet,
    # and a search's configurations print a row each (its workings below them do not): a page per 15 of them
    rows = len({k[:5] for k in books["manifest"].cells if k[1] == "search" and k[3:4] == ("row",)})
    assert pages <= 4 * len(sheets) + rows // 15, (pages, rows, sheets)
    wb = books["formulas"]
    for ws in wb.worksheets:
        assert ws.print_area, ws.title
        if ws.title not in ("Cover", "Catalog"):  # a chain fits the page across, or (too wide for 8 pt) prints at layout.PRINT_SCALE
            fits = ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToWidth == 1
            assert fits or ws.page_setup.scale == PRINT_SCALE, ws.title
        assert ws.protection.sheet and ws.protection.formatColumns is False and ws.protection.formatRows is False
    print(f"\nthe workbook prints on {pages} pages")


def test_charts_name_their_hardware_and_label_the_target(books):
    z = zipfile.ZipFile(io.BytesIO(books["data"]))
    xml = b"".join(z.read(n) for n in z.namelist() if n.startswith("xl/charts/chart")).decode()
    assert "throughput, goodput over batch on h100-sxm with llama-3.1-8b" in xml  # the title's cached text; its cell follows the dropdowns
    assert re.search(r"<title><tx><strRef><f>'goodput'!\$G\$\d+</f>", xml)
    assert re.search(r'<max val="256" ?/><min val="0" ?/>', xml) and re.search(r'<majorUnit val="32" ?/>', xml)
    assert 'alpha val="45000"' in xml  # the thick line is translucent: goodput shows through where the two coincide
    ws, man = books["stale"]["goodput"], books["manifest"]
    labels = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith(("max_batch = ", "tpot_target (the target)"))]
    assert labels == ["tpot_target (the target) = 10 ms/token", "max_batch = 64"]
    sheet, coord = man.cells[("goodput", "sweep", "batch", "throughput", 0)]
    assert books["formulas"][sheet].row_dimensions[int(coord[1:])].hidden  # the chart's points are folded
