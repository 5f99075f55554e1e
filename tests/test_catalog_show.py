"""chainc show gpu ID / show llm ID: every field with its value, unit and source; errors that point the way."""

import json

import yaml

from chainc.cli import main

from .conftest import ROOT


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _fields(kind: str) -> dict:
    return yaml.safe_load((ROOT / "hardware" / f"{kind}s" / "fields.yaml").read_text())["fields"]


def _entry(kind: str, entry_id: str) -> dict:
    return yaml.safe_load((ROOT / "hardware" / f"{kind}s" / f"{entry_id}.yaml").read_text())


def test_show_gpu_lists_every_field_with_value_unit_and_source(capsys):
    code, out, _ = run(capsys, "show", "gpu", "h200")
    assert code == 0
    written = _entry("gpu", "h200")
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    for name, spec in _fields("gpu").items():
        value = written["values"][name]
        shown = rows[name].split()
        number, unit = str(value["value"]).split(" ", 1)
        assert shown[1].replace(",", "") == number and shown[2] == unit == spec["unit"], name
        assert f"from {value['source']}" in rows[name], name
    for key, text in written["sources"].items():
        assert rows[key].split(None, 1)[1] == text


def test_show_gpu_json(capsys):
    code, out, _ = run(capsys, "show", "gpu", "a100-sxm-80gb", "--json")
    data = json.loads(out)
    assert code == 0 and (data["kind"], data["id"]) == ("gpu", "a100-sxm-80gb")
    assert [f["name"] for f in data["fields"]] == list(_fields("gpu"))
    by = {f["name"]: f for f in data["fields"]}
    assert by["memory_bandwidth"]["value"] == 2.039 and by["memory_bandwidth"]["unit"] == "TB/s"
    assert by["flops_fp8"]["value"] is None and "no FP8" in by["flops_fp8"]["note"]  # null, with its reason
    assert by["tdp"] == {"name": "tdp", "value": 400, "unit": "W", "description": _fields("gpu")["tdp"]["description"], "source": "aiconfigurator", "note": "power"}
    assert set(data["sources"]) == {f["source"] for f in data["fields"] if f.get("source")}


def test_show_llm_prints_derived_fields_with_their_equations(capsys):
    code, out, _ = run(capsys, "show", "llm", "llama-3.1-8b")
    assert code == 0
    derived = out.split("\nderived\n", 1)[1].split("\n\n", 1)[0]
    # 2 x 32 layers x 8 KV heads x (4096 / 32) x 2 bytes
    assert "kv_bytes_per_token" in derived and f"{2 * 32 * 8 * (4096 // 32) * 2:,}" in derived
    assert "= 2 * layers * kv_heads * head_dim * kv_bytes_per_element / 1[token]" in derived
    code, out, _ = run(capsys, "show", "llm", "deepseek-v3", "--json")
    by = {f["name"]: f for f in json.loads(out)["fields"]}
    assert by["kv_bytes_per_token"]["value"] == 61 * (512 + 64) * 2 and by["kv_bytes_per_token"]["derived"].startswith("kv_bytes_per_token = layers * (kv_lora_rank")
    code, out, _ = run(capsys, "show", "llm", "mixtral-8x7b", "--json")
    by = {f["name"]: f for f in json.loads(out)["fields"]}
    assert by["kv_lora_rank"]["value"] is None and by["kv_lora_rank"]["note"] == "not in this architecture"


def test_an_unknown_id_is_an_error_with_did_you_mean(capsys):
    code, _, err = run(capsys, "show", "gpu", "h2000")
    assert code == 2 and "unknown GPU 'h2000'" in err and "did you mean h200" in err
    code, out, _ = run(capsys, "show", "llm", "lama-3.1-8b", "--json")
    assert code == 2 and "llama-3.1-8b" in json.loads(out)["error"]["hint"]
    code, _, err = run(capsys, "show", "llm", "h200")
    assert code == 2 and "chainc show gpu h200" in err
    code, _, err = run(capsys, "show", "gpu")
    assert code == 2 and "h200" in err and "mi300x" in err


def test_show_of_a_catalog_id_points_at_show_gpu(capsys):
    code, _, err = run(capsys, "show", "h200")
    assert code == 2 and "no model 'h200'" in err and "chainc show gpu h200" in err
    code, _, err = run(capsys, "show", "deepseek-v3")
    assert code == 2 and "chainc show llm deepseek-v3" in err
    code, _, err = run(capsys, "show", "goodput", "extra")
    assert code == 2 and "one model name" in err


def test_a_mistyped_catalog_field_suggests_every_close_one(tmp_path, capsys, monkeypatch):
    (tmp_path / "models").mkdir()
    text = (ROOT / "models" / "goodput.yaml").read_text()
    assert "gpu.memory_bandwidth" in text
    (tmp_path / "models" / "goodput.yaml").write_text(text.replace("gpu.memory_bandwidth", "gpu.flops", 1))
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", "goodput")
    assert code == 2 and "did you mean gpu.flops_bf16 or gpu.flops_fp8?" in err
    (tmp_path / "models" / "goodput.yaml").write_text(text.replace("gpu.memory_bandwidth", "gpu.memory_bandwith", 1))
    code, _, err = run(capsys, "check", "goodput")
    assert code == 2 and "did you mean gpu.memory_bandwidth?" in err
