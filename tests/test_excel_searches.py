"""Searches in the workbook, live: every configuration's row, the rank, the best, the table, the frontier, recalculated.

One workbook holds tests/models/searches.yaml (a value-set objective, a free variable's golden-section
optimum, a GPU x TP grid with an inner question and a memory condition, a frontier; and a check of a search),
tensor-parallel (two conditions, one binding), speculative-decoding (64 draft lengths, a sum per row) and
deployment (an inner question of two conditions at each GPU x TP, each condition's answer laid out per row and
combined; a frontier over 288 configurations).
LibreOffice and Gnumeric recalculate copies of it (every cached value replaced by -12345) and each search
sheet is compared with the solver's Chosen at the same inputs (chainc.ask):

- 'stale': the build's inputs;
- 'target15', 'target40': tpot_target typed as 15 and 40 ms/token (max_batch, so the cheapest, moves),
  tensor-parallel's batch 256, speculative-decoding's acceptance 0.9; deployment's TPOT target 15 ms, its TTFT
  target 50 ms (the B200 at TP 8);
- 'catalog': h100-sxm's price typed in the Catalog sheet (2 USD/h: the cheapest GPU changes) and the
  searches sheet's GPU dropdown set to h200 (the searches that do not vary the GPU follow it);
- 'none': no configuration meets the conditions (tpot_target 5 here and in deployment; tensor-parallel at batch 100,000): #N/A,
  the closest row and its why.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import openpyxl
import pytest

from chainc import Project, ask
from chainc.backends import BuildOptions
from chainc.backends.excel import build_workbook
from chainc.build import reports_for

from .conftest import CI, ROOT
from .test_excel import close, stale_copy
from .tools import require

MODELS = (str(ROOT / "tests" / "models" / "searches.yaml"), "tensor-parallel", "speculative-decoding", "deployment")
# a check of a search's chosen GPU (its id, compared as text) and configuration: appended to searches.yaml's copy
CHECK = """  - about: "the cheapest at 20 ms/token: h200 at tp 8, 705 sequences"
    question: cheapest
    expect: {gpu: h200, tp: 8, batch: 705}
"""
CASES = {
    "stale": ({}, {}),
    "target15": ({"searches": {"tpot_target": 15}, "deployment": {"tpot_target": 15}}, {}),
    "target40": ({"searches": {"tpot_target": 40}, "tensor-parallel": {"batch": 256}, "speculative-decoding": {"acceptance": 0.9}, "deployment": {"ttft_target": 0.05}}, {}),
    "catalog": ({}, {"price": 2, "gpu": "h200"}),
    "none": ({"searches": {"tpot_target": 5}, "tensor-parallel": {"batch": 100000}, "deployment": {"tpot_target": 5}}, {}),
}


def _catalog_project(tmp: Path) -> Project:
    """A project whose h100-sxm costs 2 USD/h: the solver's side of the workbook's typed catalog value."""
    (tmp / "models").mkdir(parents=True)
    shutil.copy(tmp.parent / "models" / "searches.yaml", tmp / "models" / "searches.yaml")
    shutil.copytree(ROOT / "hardware", tmp / "hardware")  # deployment searches every GPU: the whole catalog, one price changed
    gpus = tmp / "hardware" / "gpus"
    text = (ROOT / "hardware" / "gpus" / "h100-sxm.yaml").read_text(encoding="utf-8")
    changed = re.sub(r"price_per_hour: \{value: [0-9.]+ USD/h", "price_per_hour: {value: 2 USD/h", text)
    assert changed != text
    (gpus / "h100-sxm.yaml").write_text(changed, encoding="utf-8")
    return Project(tmp)


def _typed(data: bytes, manifest, case: str) -> bytes:
    given, catalog = CASES[case]
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for model, values in given.items():
        for name, v in values.items():
            sheet, coord = manifest.cells[(model, "input", name)]
            wb[sheet][coord] = v
    if catalog:
        sheet, coord = manifest.cells[("catalog", "gpu", "h100-sxm", "price_per_hour")]
        wb[sheet][coord] = catalog["price"]
        sheet, coord = manifest.cells[("searches", "select", "gpu")]
        wb[sheet][coord] = catalog["gpu"]
    out = io.BytesIO()
    wb.save(out)
    return stale_copy(out.getvalue())[0]


@pytest.fixture(scope="module")
def book(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("searches")
    (tmp / "models").mkdir()
    (tmp / "models" / "searches.yaml").write_text((ROOT / "tests" / "models" / "searches.yaml").read_text(encoding="utf-8") + CHECK, encoding="utf-8")
    names = [str(tmp / "models" / "searches.yaml"), *MODELS[1:]]
    reports, catalog = reports_for(project, names, BuildOptions(out=tmp))
    data, manifest = build_workbook(reports, catalog)
    paths = []
    for case in CASES:
        path = tmp / f"{case}.xlsx"
        path.write_bytes(_typed(data, manifest, case) if case != "stale" else stale_copy(data)[0])
        paths.append(path)
    return {"names": names, "tmp": tmp, "data": data, "manifest": manifest, "reports": reports, "paths": paths, "catalog_project": _catalog_project(tmp / "project")}


@pytest.fixture(scope="module")
def libreoffice(book):
    require("soffice")
    from .excel_recalc import recalculate

    outs = recalculate(book["paths"], book["tmp"] / "lo")
    return {case: openpyxl.load_workbook(p, data_only=True) for case, p in zip(CASES, outs)}


@pytest.fixture(scope="module")
def gnumeric(book):
    require("ssconvert")
    from .gnumeric_recalc import recalculate_gnumeric

    outs = recalculate_gnumeric(book["paths"], book["tmp"] / "gnm")
    return {case: openpyxl.load_workbook(p, data_only=True) for case, p in zip(CASES, outs)}


def solver(book, case: str) -> dict:
    """(model, search) -> the solver's Chosen at the case's inputs."""
    given, catalog = CASES[case]
    out = {}
    for r in book["reports"]:
        m = r.model
        project = book["catalog_project"] if catalog else Project(ROOT)
        model = project.model(m.name) if catalog and m.name == "searches" else m
        for name, s in m.searches.items():
            gpu = catalog.get("gpu") if catalog and m.name == "searches" and not any(a.name == "gpu" for a in s.over) else None
            out[(m.name, name)] = ask(model, name, given=given.get(m.name, {}), gpu=gpu, project=project)
    return out


def expected(model: str, chosen) -> dict:
    """manifest key -> the solver's value, for one search's sheet."""
    s = chosen.search
    key = (model, "search", s.name)
    want = {}
    for i in range(len(chosen.configs)):
        values = chosen.values(i)
        for name in [a.name for a in s.over]:
            want[(*key, "row", i, name)] = values[name]
        for name in chosen.inner_names():
            if name != s.free:  # an inner question's answer in its workings
                want[(*key, "inner", i, name)] = "#N/A" if values[name] is None else values[name]
            want[(*key, "row", i, name)] = "none" if values[name] is None else values[name]
        for g in s.goals:
            want[(*key, "row", i, g.name)] = values[g.name]  # None: the row has no values (a blank cell)
        want[(*key, "row", i, "failed")] = chosen.failed[i]
        if s.frontier:
            want[(*key, "row", i, "frontier")] = 1 if i in chosen.order else 0
        else:
            want[(*key, "row", i, "rank")] = chosen.order.index(i) + 1 if i in chosen.order else None
    table = chosen.table(None if s.frontier else s.show)
    names = [a.name for a in s.over] + list(chosen.inner_names()) + [g.name for g in s.goals]
    listed = len(table) if s.frontier else s.show
    for k in range(listed):
        for name in names:
            want[(*key, "table", k, name)] = table[k][name] if k < len(table) else None
    if s.frontier:
        want[(*key, "frontier count")] = len(chosen.order)
    else:
        best = chosen.best
        want[(*key, "best", "row")] = best + 1 if best is not None else "#N/A"
        for name in names[: len(names) - len(s.goals) + 1]:
            want[(*key, "best", name)] = chosen.values(best)[name] if best is not None else "#N/A"
        want[(*key, "binding")] = chosen.binding[0][0] if chosen.binding else None
        counts = dict(chosen.binding)
        for label, _, _, _ in chosen.search.conditions and [(c.label, 0, 0, 0) for c in chosen.search.conditions]:
            want[(*key, "count", label)] = counts.get(label, 0)
    want[(*key, "closest")] = chosen.closest + 1 if chosen.closest is not None else None
    return want


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def same_text(got, want) -> bool:
    """Words equal; numbers to 6 significant figures (the workbook's ROUND and the solver's %.6g; Gnumeric's 20 digits)."""
    if not isinstance(got, str) or not isinstance(want, str):
        return False
    a, b = NUMBER.findall(got), NUMBER.findall(want)
    return NUMBER.split(got) == NUMBER.split(want) and len(a) == len(b) and all(close(float(x), float(y), 2e-6) for x, y in zip(a, b))


def check(wb, book, case: str, engine: str) -> int:
    manifest, compared, wrong = book["manifest"], 0, []
    for (model, name), chosen in solver(book, case).items():
        free = chosen.search.free
        for key, value in expected(model, chosen).items():
            sheet, coord = manifest.cells[key]
            got = wb[sheet][coord].value
            compared += 1
            # a free variable's optimum: the engines decide the golden-section's last near-ties with their own rounding
            # (LibreOffice compares to 15 digits), so it agrees to 1e-7 and its goal, flat there, to 1e-12
            rel = 1e-6 if free and key[-1] == free else 1e-11 if free else 1e-9
            if not close(got, value, rel):
                wrong.append(f"{case}: {key} {sheet}!{coord}: {engine} {got!r}, solver {value!r}")
        for i, (label, why) in enumerate(zip(chosen.failed, chosen.why)):
            if label and label != "no value":
                sheet, coord = manifest.cells[(model, "search", name, "row", i, "why")]
                compared += 1
                if not same_text(wb[sheet][coord].value, why):
                    wrong.append(f"{case}: {name} row {i + 1} why: {engine} {wb[sheet][coord].value!r}, solver {why!r}")
        sheet, coord = manifest.cells[(model, "search", name, "sentence")]
        sentence = wb[sheet][coord].value
        compared += 1
        if chosen.closest is not None and chosen.failed[chosen.closest] == "no value":  # the workbook's why is generic there
            if not sentence.startswith(f"no configuration meets the conditions ({len(chosen.configs)} searched)"):
                wrong.append(f"{case}: {name} sentence {sentence!r}")
        elif not same_text(sentence, chosen.sentence()):
            wrong.append(f"{case}: {name} sentence: {engine} {sentence!r}, solver {chosen.sentence()!r}")
    chosen = solver(book, case)[("searches", "cheapest")]
    own = "reference" if CASES[case][1] else None  # the dropdown moved off the model's h100-sxm: a reference, not a check
    for name, want in (("gpu", "h200"), ("tp", 8), ("batch", 705)):
        got = chosen.values(chosen.best)[name] if chosen.best is not None else "#N/A"
        for key, value in (("check", got), ("status", own or ("OK" if got == want else "FAIL"))):
            sheet, coord = manifest.cells[("searches", key, 2, name)]
            compared += 1
            if wb[sheet][coord].value != value:
                wrong.append(f"{case}: check of cheapest, {name} {key}: {engine} {wb[sheet][coord].value!r}, want {value!r}")
    assert not wrong, "\n".join(wrong[:40])
    return compared


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_libreoffice_recalculates_every_search_to_the_solver(libreoffice, book, case):
    assert check(libreoffice[case], book, case, "LibreOffice") > 300


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_gnumeric_recalculates_every_search_to_the_solver(gnumeric, book, case):
    assert check(gnumeric[case], book, case, "Gnumeric") > 300


def test_the_cases_move_the_answers(book):
    """The typed inputs change what the solver chooses, so agreeing with it is no accident of the build's inputs."""
    at = {case: solver(book, case) for case in CASES}
    cheapest = {case: at[case][("searches", "cheapest")] for case in CASES}
    assert cheapest["stale"].values(cheapest["stale"].best) == {"gpu": "h200", "tp": 8, "batch": 705, "cost": pytest.approx(0.286144, rel=1e-5)}
    assert cheapest["catalog"].config(cheapest["catalog"].best)["gpu"] == "h100-sxm"
    assert cheapest["target15"].values(cheapest["target15"].best)["batch"] != 705
    assert cheapest["none"].best is None
    assert at["none"][("tensor-parallel", "fastest_tp")].best is None and at["none"][("tensor-parallel", "fastest_tp")].closest is not None
    assert at["target40"][("speculative-decoding", "best_draft_tokens")].value != at["stale"][("speculative-decoding", "best_draft_tokens")].value


def test_a_free_variable_beside_inner_questions_is_the_build_answer_with_a_note(project, tmp_path):
    """A free variable optimised where inner questions are answered at every point: fixed cells, and a located build note."""
    text = (ROOT / "tests" / "models" / "searches.yaml").read_text(encoding="utf-8")
    search = "  overlap_at_batch:\n    over: {tp: [4, 8]}\n    find: overlap\n    with: {batch: max_batch}\n    seek: min tpot\n"
    path = tmp_path / "searches.yaml"
    path.write_text(text.replace("\nfrontiers:", search + "\nfrontiers:"), encoding="utf-8")
    reports, catalog = reports_for(project, [str(path)], BuildOptions(out=tmp_path))
    data, manifest = build_workbook(reports, catalog)
    notes = [n for n in manifest.notes if "overlap_at_batch" in n]
    assert len(notes) == 1 and re.match(r".*searches\.yaml:\d+:\d+: note: .*golden-section.*inner questions", notes[0])
    chosen = reports[0].searches["overlap_at_batch"]
    sheet, coord = manifest.cells[("searches", "search", "overlap_at_batch", "best", "overlap")]
    assert (sheet, coord) in manifest.fixed
    assert openpyxl.load_workbook(io.BytesIO(data))[sheet][coord].value == pytest.approx(chosen.value["overlap"])
    assert not [n for n in manifest.notes if "best_overlap" in n]  # a free variable alone is laid out live


def test_a_search_past_the_limit_is_the_build_answer_with_a_note(project, monkeypatch, tmp_path):
    """workbook_configurations: cheapest's 16 rows and interactivity's 30 are past a limit of 10, fastest_tp's 7 are not."""
    monkeypatch.setenv("CHAINC_MAX_WORKBOOK_CONFIGURATIONS", "10")
    reports, catalog = reports_for(project, [MODELS[0]], BuildOptions(out=tmp_path))
    data, manifest = build_workbook(reports, catalog)
    notes = {n.split("(")[1].split(")")[0]: n for n in manifest.notes if "workbook_configurations" in n}
    assert set(notes) == {"cheapest", "interactivity"}
    assert re.match(r".*searches\.yaml:\d+:\d+: note: the workbook's sheet cheapest \(cheapest\) holds the build's answer .*16 configurations", notes["cheapest"])
    chosen = reports[0].searches["cheapest"]
    sheet, coord = manifest.cells[("searches", "search", "cheapest", "best", "cost")]
    assert (sheet, coord) in manifest.fixed
    wb = openpyxl.load_workbook(io.BytesIO(data))
    assert wb[sheet][coord].value == pytest.approx(chosen.values(chosen.best)["cost"])
    assert ("searches", "search", "fastest_tp", "row", 6, "rank") in manifest.cells  # still laid out live
    assert not any(k[:4] == ("searches", "search", "cheapest", "row") and k[5] == "rank" for k in manifest.cells)


def test_the_same_inputs_give_the_same_bytes(book, project, tmp_path):
    reports, catalog = reports_for(project, book["names"], BuildOptions(out=tmp_path))
    assert build_workbook(reports, catalog)[0] == book["data"]


@pytest.mark.slow
def test_formulas_computes_the_searches_book(book):
    """A third engine, the Python `formulas` package, computes the whole book from its inputs (every SUMPRODUCT rank,
    the frontier's marks, the inner questions' workings) and gives every cached value back (the Chosen's numbers)."""
    formulas = pytest.importorskip("formulas") if not CI else __import__("formulas")
    from .test_excel_formulas import computed, plain

    reports, catalog = reports_for(Project(ROOT), [MODELS[0]], BuildOptions(out=book["tmp"]))
    data, manifest = build_workbook(reports, catalog)
    path = book["tmp"] / "formulas.xlsx"
    path.write_bytes(data)
    got = computed(path)
    cached = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    # best_overlap's optimum is cached as the solver's; the workbook's golden-section, in floats, ends 2e-8 away
    optimum = {manifest.cells[k] for k in manifest.cells if k[-1] == "overlap" and ("best_overlap" in k or k[1] == "check")}
    compared, wrong = 0, []
    for ws in openpyxl.load_workbook(io.BytesIO(data)).worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    want, have = cached[ws.title][c.coordinate].value, plain(got.get((ws.title.upper(), c.coordinate)))
                    compared += 1
                    rel = 1e-6 if (ws.title, c.coordinate) in optimum else 1e-9
                    if not (close(have, want, rel) or (want is None and have in ("", "0.0", 0.0))):
                        wrong.append(f"{ws.title}!{c.coordinate}: formulas {have!r}, chainc {want!r}")
    assert formulas is not None and compared > 3000 and not wrong, "\n".join(wrong[:40])


def test_a_frontier_is_drawn_from_live_cells(book):
    """interactivity's chart: every feasible configuration (x, y) and the frontier's listed places, #N/A where none."""
    wb = openpyxl.load_workbook(io.BytesIO(book["data"]))
    cached = openpyxl.load_workbook(io.BytesIO(book["data"]), data_only=True)
    chosen = book["reports"][0].searches["interactivity"]
    title = next(sheet for key, (sheet, _) in book["manifest"].cells.items() if key[:3] == ("searches", "search", "interactivity"))
    ws = wb[title]  # deployment has a frontier of that name too: the sheets' titles tell them apart
    (chart,) = ws._charts
    every, line = chart.series
    assert chart.visible_cells_only is False  # its cells are in hidden helper columns

    def points(series):
        ys = series.yVal.numRef.f.split("!")[1].replace("$", "")
        xs = series.xVal.numRef.f.split("!")[1].replace("$", "")
        cells = lambda ref: [c.value for row in cached[title][ref] for c in row]  # noqa: E731
        return [(x, y) for x, y in zip(cells(xs), cells(ys)) if x != "#N/A"]

    want = [(v["per_user"], v["throughput"]) for v in chosen.table()]
    assert [(pytest.approx(x), pytest.approx(y)) for x, y in want] == points(line)
    feasible = [(chosen.values(i)["per_user"], chosen.values(i)["throughput"]) for i in range(len(chosen.configs)) if not chosen.why[i]]
    assert sorted(points(every)) == [(pytest.approx(x), pytest.approx(y)) for x, y in sorted(feasible)]
