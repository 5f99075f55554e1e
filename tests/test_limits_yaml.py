"""The YAML limits stop alias bombs, not big models: aliases' copies are counted, a file's own values are not."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import jsonschema
import pytest

from chainc import schema
from chainc.errors import ModelError
from chainc.limits import LIMITS
from chainc.source import load_yaml
from tests.benchmarks.synthetic import chain
from tests.test_errors import ROOT, assert_located_error, run


@pytest.fixture(autouse=True)
def _no_limit_from_outside(monkeypatch):
    for var in ("CHAINC_MAX_YAML_BYTES", "CHAINC_MAX_YAML_NODES", "CHAINC_MAX_YAML_DEPTH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)


# each alias of &d adds the mapping and its two values (keys are not values): 3 per use, 6 in all
SHARED = """\
name: shared
title: Shared defaults
variables:
  base: &d {unit: ms, value: 1}
  a: *d
  b: {<<: *d, value: 2}
  c: {unit: ms}
equations:
  - c = a + b + base
"""


def test_a_big_model_without_aliases_is_within_the_default_limits(monkeypatch):
    """A 100,000-equation chain fits the byte limit, and its own values count against nothing."""
    assert len(chain(100_000).encode()) < LIMITS["yaml_bytes"].default
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "1")  # not one value from aliases allowed
    src = load_yaml("chain-5000.yaml", chain(5000))  # 25,000 values: more than the old count's 10,000 default
    assert len(src.data["equations"]) == 5000 and src.data["equations"][-1] == "x_5000 = x_4999 * k + 1[ms]"


def test_the_limit_counts_what_aliases_add(monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "6")
    src = load_yaml("shared.yaml", SHARED)
    assert src.data["variables"]["a"] == {"unit": "ms", "value": 1} and src.data["variables"]["b"]["value"] == 2
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "5")
    with pytest.raises(ModelError) as e:
        load_yaml("shared.yaml", SHARED)
    # *d on line 5 adds 3; the merged *d on line 6 adds the 4th to 6th: the error points at that alias
    assert (e.value.loc.line, e.value.loc.col) == (6, 11)
    assert e.value.message == "aliases add more than 5 YAML values to the file, counting each use of an alias as a copy"


def test_the_error_names_its_variable_and_a_raised_limit_loads(capsys, monkeypatch, tmp_path):
    path = tmp_path / "shared.yaml"
    path.write_text(SHARED)
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "3")
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 6, 11, "aliases add more than 3 YAML values", "CHAINC_MAX_YAML_NODES=")
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "6")
    code, out, err = run(capsys, "solve", path, "--json", "--no-cache")
    assert code == 0, err
    assert json.loads(out)["values"]["c"]["value"] == 1 + 2 + 1


# nine levels of nine: 9**9 (387 million) values once expanded, from 600 bytes
LAUGHS = "name: laughs\ntitle: Laughs\nvariables: {a: {value: 1}}\nequations: []\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9)
)

PROBE = textwrap.dedent(
    """
    import json, resource, sys, time
    from chainc.errors import ModelError
    from chainc.source import load_yaml
    text = sys.stdin.read()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        load_yaml("laughs.yaml", text)
        message = None
    except ModelError as e:
        message = [e.message, e.loc.line, e.loc.col]
    seconds = time.perf_counter() - start
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    print(json.dumps({"message": message, "seconds": seconds, "grown_kib": grown}))
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux only")
def test_billion_laughs_is_refused_before_expansion_in_bounded_memory():
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", PROBE], input=LAUGHS, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    # l1..l3 add 90 + 819 + 7,380 values; the first *l3 of l4 (line 9) adds 7,381 more, the 10,001st among them
    assert got["message"] == ["aliases add more than 10,000 YAML values to the file, counting each use of an alias as a copy", 9, 10]
    assert got["seconds"] < 2  # the walk stops after 10,000 copies; expanded, the file would never load
    assert got["grown_kib"] < 50 * 1024  # the expansion would take tens of gigabytes


# --- schema validation of a big model: an equal value is validated once ----------------------------------

PLAIN = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": schema._pattern})


def _errors(validator_class, data, of=schema.MODEL_SCHEMA):
    token = schema._passed.set(set())
    try:
        return sorted((tuple(map(str, e.absolute_path)), e.message) for e in validator_class(of).iter_errors(data))
    finally:
        schema._passed.reset(token)


@pytest.mark.parametrize("bad", [{"unit": "ms", "value": True}, {"unit": "ms", "digits": 0}, {"unit": 5, "colour": "red"}, "ms"])
def test_skipping_equal_values_finds_every_error(bad):
    specs = {f"x_{i}": {"unit": "ms"} for i in range(50)} | {"odd": bad} | {f"y_{i}": {"unit": "ms"} for i in range(50)} | {"again": bad}
    data = {"name": "m", "title": "M", "variables": specs, "equations": ["x_1 = 1", {"equation": "x_2 = 2"}, 3, "x_3 = 3", {"about": "no equation"}]}
    got = _errors(schema._Validator, data)
    assert got == _errors(PLAIN, data) and {p[:2] for p, _ in got} >= {("variables", "odd"), ("variables", "again"), ("equations", "2"), ("equations", "4")}


def test_a_subschema_that_reads_text_sees_every_string():
    of = {"type": "array", "items": {"type": "string", "pattern": "^a"}}
    data = ["a1", "a2", "b", "a3", "c"]
    assert _errors(schema._Validator, data, of) == _errors(PLAIN, data, of) and [p for p, _ in _errors(schema._Validator, data, of)] == [("2",), ("4",)]


def test_a_big_models_schema_error_is_located(tmp_path):
    text = chain(3000).replace("  x_2000: {unit: ms}", "  x_2000: {unit: ms, colour: red}")
    with pytest.raises(ModelError) as e:
        schema.validate(load_yaml("chain-3000.yaml", text), schema.MODEL_SCHEMA)
    assert e.value.loc.line == 2005 and "colour" in e.value.message


def test_every_limit_is_documented_with_its_default_and_setting():
    """docs/security.md's table lists each row of LIMITS: its name, its default and the variable that raises it."""
    import inspect
    import re

    from chainc.backends.python.helpers import _Budget, _terms
    from tests.conftest import ROOT

    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z_]+)` \|.*$", (ROOT / "docs" / "security.md").read_text(encoding="utf-8"), re.M)}
    assert set(rows) == set(LIMITS)
    for name, limit in LIMITS.items():
        cells = [c.strip() for c in rows[name].strip("|").split("|")]
        assert cells[1] == f"{limit.default:,}", name
        assert cells[2] in (f"`{limit.env}`", "fixed", "`max_rows:` on the table"), name
        assert (cells[2] == f"`{limit.env}`") == (limit.env is not None), name
    assert inspect.signature(_terms).parameters["most"].default == LIMITS["sum_terms"].default  # the generated modules' copy
    assert _Budget.seconds == LIMITS["solve_seconds"].default  # and of the time budget


def test_each_limit_has_one_row():
    import re

    from tests.conftest import ROOT

    names = re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs" / "security.md").read_text(encoding="utf-8"), re.M)
    assert sorted(names) == sorted(set(names))
