"""The command line, as a user runs it."""

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from chainc import solve
from chainc.cli import main
from chainc.errors import SolveError

from .conftest import ROOT


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_max_batch_json(capsys):
    code, out, _ = run(capsys, "solve", "goodput", "--question", "max_batch", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["model"], data["gpu"], data["llm"], data["question"]) == ("goodput", "h100-sxm", "llama-3.1-8b", "max_batch")
    assert data["answer"]["value"] == 64 and data["values"]["batch"] == {"value": 64.0, "unit": ""}
    assert data["values"]["tpot"]["unit"] == "ms/token"


def test_max_batch_on_h200_reads_its_bandwidth(capsys):
    code, out, _ = run(capsys, "solve", "goodput", "--question", "max_batch", "--gpu", "h200", "--json")
    data = json.loads(out)
    assert code == 0 and data["gpu"] == "h200"
    assert data["values"]["bandwidth"] == {"value": 4.8, "unit": "TB/s"}
    assert data["answer"]["value"] == 118  # floor((10 ms x 4.8 TB/s - 16.06 GB) / (2,048 x 131,072 B))


def test_json_has_every_variable(capsys, project):
    for name in project.model_names():
        code, out, _ = run(capsys, "solve", name, "--json")
        assert code == 0
        assert set(json.loads(out)["values"]) == set(project.model(name).variables)


def test_json_prints_a_table_row_a_line(capsys, project):
    """Indented like json.dumps(indent=2), except that a table's row is one line: the same data either way."""
    from chainc.backends.json_report import dumps

    for name in project.model_names():
        code, out, _ = run(capsys, "solve", name, "--json")
        data = json.loads(out)
        rows = sum(len(t) for t in data["tables"].values())
        one_line_rows = json.dumps(data, indent=2).count("\n") - sum(len(r) + 1 for t in data["tables"].values() for r in t)
        assert out.count("\n") == one_line_rows + 1  # print() ends the text with a newline
        assert dumps(data) == out.rstrip("\n")
        if not rows:
            assert out.rstrip("\n") == json.dumps(data, indent=2)
    assert dumps({"t": [{"a": 1, "b": [2]}], "e": [], "d": {}}) == json.dumps({"t": [{"a": 1, "b": [2]}], "e": [], "d": {}}, indent=2)


def test_given_and_find(capsys):
    code, out, _ = run(capsys, "solve", "goodput", "--find", "batch", "--given", "tpot=10ms", "--json")
    assert code == 0
    assert json.loads(out)["values"]["batch"]["value"] == pytest.approx(64.967116355896, rel=1e-9)
    code, out, _ = run(capsys, "solve", "goodput", "--given", "bandwidth=4.8TB/s", "--given", "batch=128", "--json")
    assert json.loads(out)["values"]["tpot"]["value"] == pytest.approx((16.060522496 + 128 * 2048 * 131072 / 1e9) / 4.8, rel=1e-12)


def test_explain_shows_the_rearranged_equation(capsys):
    code, out, _ = run(capsys, "solve", "goodput", "--find", "batch", "--given", "tpot=10ms", "--explain")
    assert code == 0
    assert "solving for batch: batch = (step_bytes - weight_bytes)/(context*kv_bytes_per_token)" in out
    assert "batch = 64.97" in out


def test_question_plain_output(capsys):
    code, out, _ = run(capsys, "solve", "p99-knee", "--question", "max_utilization")
    assert code == 0
    assert "utilization = 0.69 " in out and "floor of the boundary 0.69" in out


def test_check_all(capsys, project):
    code, out, _ = run(capsys, "check")
    assert code == 0
    for name in project.model_names():
        assert f"ok  {name}:" in out
    assert " passed, 0 failed" in out


def _entry_files(folder: str) -> int:
    """The bundled entries of a kind, counted from the folder (fields.yaml declares the fields, it is no entry)."""
    return len([p for p in (ROOT / "hardware" / folder).glob("*.yaml") if p.stem != "fields"])


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", "--json")
    data = json.loads(out)
    assert code == 0
    assert len(data["models"]) == len(list((ROOT / "models").glob("*.yaml"))) and len(data["gpus"]) == _entry_files("gpus") and len(data["llms"]) == _entry_files("llms")
    mi300x = next(g for g in data["gpus"] if g["id"] == "mi300x")
    assert mi300x["title"] == "AMD Instinct MI300X" and mi300x["from"] == "bundled" and mi300x["path"].endswith("hardware/gpus/mi300x.yaml")


def test_schema_is_json_schema(capsys):
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    assert code == 0 and schema["$schema"].endswith("2020-12/schema")
    assert {"variables", "equations", "tables", "questions", "checks"} <= set(schema["properties"])
    # the copy editors read (docs/model.schema.json, named on each model's first line) is this one
    assert json.loads((ROOT / "docs" / "model.schema.json").read_text()) == schema, "regenerate it: chainc schema > docs/model.schema.json"


def test_every_chain_runs_on_every_gpu_and_llm(project):
    """Every chain solves on every entry, except where it reads a value the entry marks null (tensor-parallel reads the
    NVLink bandwidth, which the L40S lacks): then only the catalog's located error, naming that field."""
    gpus, llms = project.catalog.ids("gpu"), project.catalog.ids("llm")
    for name in project.model_names():
        m = project.model(name)
        for gpu in gpus if m.gpu else [None]:
            for llm in llms if m.llm else [None]:
                try:
                    s = solve(m, gpu=gpu, llm=llm, project=project)
                except SolveError as e:
                    field = re.search(r"has no value for (\w+)", e.message)
                    assert field, (name, gpu, llm, e.message)
                    entries = [("gpus", gpu), ("llms", llm)]
                    typed = [yaml.safe_load((ROOT / "hardware" / kind / f"{i}.yaml").read_text())["values"].get(field[1], 0) for kind, i in entries if i]
                    assert any((v["value"] if isinstance(v, dict) else v) is None for v in typed), (name, gpu, llm, e.message)
                    continue
                assert all(isinstance(v, (int, float, Fraction)) and v == v for v in s.values.values()), (name, gpu, llm)


def test_build_is_deterministic(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "build", "--format", "json", "--out", str(a))[0] == 0
    assert run(capsys, "build", "--format", "json", "--out", str(b))[0] == 0
    files = sorted(p.name for p in a.iterdir())
    assert len(files) == len(list((ROOT / "models").glob("*.yaml")))
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes()


# The console script of this environment (beside its python), never whatever `chainc` PATH holds.
CONSOLE_SCRIPT = str(Path(sys.executable).with_name("chainc"))


@pytest.mark.parametrize("argv", [[CONSOLE_SCRIPT, "--help"], [sys.executable, "-m", "chainc", "--help"], [sys.executable, "-m", "compiler", "--help"]], ids=["script", "-m chainc", "-m compiler"])
def test_entry_points(argv):
    r = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0
    assert "chainc solve goodput --question max_batch --gpu h200" in r.stdout


def test_checks_on_other_hardware_are_references_not_failures(capsys, project):
    code, out, _ = run(capsys, "check", "goodput", "--gpu", "h200")
    assert code == 0 and "FAIL" not in out
    assert "n/a  tpot = 6.925 ms/token (card: 9.9 ms/token on NVIDIA H100 SXM5 80GB with Llama 3.1 8B)" in out
    checks = len(project.model("goodput").checks)
    assert f"0 passed, 0 failed, {checks} not applicable" in out
    code, out, _ = run(capsys, "check", "goodput", "--gpu", "h200", "--json")
    data = json.loads(out)
    assert code == 0 and data["not_applicable"] == checks and not any(c["applies"] for c in data["models"][0]["checks"])
    code, out, _ = run(capsys, "check", "goodput", "--gpu", "h100-sxm")  # its own hardware, named: the checks apply
    assert code == 0 and f"ok  goodput: {checks}/{checks} checks" in out


def test_a_reader_that_stops_early_ends_the_command_quietly():
    """`chainc solve ... --json | head` ended in two BrokenPipeError tracebacks; now it ends as a Unix tool does (141, no words)."""
    cmd = f'{CONSOLE_SCRIPT} solve hol-blocking --json --given long_prompt=3000000 | head -c 10; echo " rc=${{PIPESTATUS[0]}}"'
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.stdout.endswith(" rc=141\n") and r.stdout.startswith("{"), r.stdout
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr


def test_the_manual_is_a_command(capsys):
    """chainc docs lists the pages by topic and heading; a topic prints its page as written; a typo is located with the pages."""
    code, out, _ = run(capsys, "docs")
    topics = [ln.split()[0] for ln in out.splitlines()[: len(list((ROOT / "docs").glob("*.md"))) + 1]]
    assert code == 0 and sorted(topics) == sorted(["readme", *(p.stem for p in (ROOT / "docs").glob("*.md"))])
    assert "model-format  The model file format" in out
    code, out, _ = run(capsys, "docs", "cli")
    assert code == 0 and out == (ROOT / "docs" / "cli.md").read_text()
    code, out, err = run(capsys, "docs", "model-formt")
    assert code == 2 and "no docs page 'model-formt'" in err and "did you mean model-format?" in err


def test_list_fits_a_narrow_terminal():
    """In an 80-column terminal every row of chainc list fits (the bundled folder is named once, in --version; titles are
    cut with an ellipsis); piped, nothing is cut, so ids, titles and paths can be copied whole."""
    import os
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    r = subprocess.run([CONSOLE_SCRIPT, "list"], stdout=follower, stderr=subprocess.PIPE, cwd=ROOT / "docs", env=env, timeout=120)
    os.close(follower)
    text = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        text += chunk
    os.close(leader)
    rows = [ln for ln in text.decode().replace("\r", "").splitlines() if ln.strip()]
    assert r.returncode == 0 and len(rows) > 30, r.stderr
    assert max(map(len, rows[1:])) <= 80, [ln for ln in rows if len(ln) > 80]
    assert any(ln.rstrip().endswith("bundled") and "…" in ln for ln in rows)  # titles longer than the room are cut
    piped = subprocess.run([CONSOLE_SCRIPT, "list"], capture_output=True, text=True, cwd=ROOT / "docs", env=env, timeout=120).stdout
    assert "…" not in piped and "Chunked prefill's token budget, TPOT against TTFT" in piped


def test_a_name_in_the_wrong_case_is_offered_in_the_right_one(capsys):
    """kv_dtype=FP8: difflib rates 'FP8' far from 'fp8' (case counts), so the hint offered an example, not the name meant."""
    code, _, err = run(capsys, "solve", "quantization", "--given", "kv_dtype=FP8")
    assert code == 2 and "'FP8' is not one of kv_dtype's choices" in err and "did you mean kv_dtype=fp8?" in err
