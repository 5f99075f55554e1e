"""`chainc solve --explain`: the derivation the sheet prints, as plain text."""

from __future__ import annotations

from chainc import solve
from chainc.backends.text import text_lines
from chainc.cli import main
from chainc.derivation import derive


def test_explain_forward(capsys):
    assert main(["solve", "goodput", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "step 1: step_bytes" in out
    assert "step_bytes = weight_bytes + batch*context*kv_bytes_per_token" in out
    assert "= 16.06 GB + 64*2,048 token*(131,072 B/token)" in out
    assert "tpot = step_overhead + step_bytes/(bandwidth*bandwidth_efficiency*1 token)" in out  # the unit literal keeps its unit
    assert "tpot = 9.923 ms/token" in out
    assert "goodput = if(tpot <= tpot_target, throughput, 0)" in out


def test_explain_rearranged(capsys):
    assert main(["solve", "goodput", "--find", "batch", "--given", "tpot=10ms", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "solving for batch: batch = (step_bytes - weight_bytes)/(context*kv_bytes_per_token)" in out
    assert "= (33.5 GB - 16.06 GB)/(2,048 token*(131,072 B/token))" in out
    assert "batch = 64.97" in out


def test_explain_matches_the_structure(project):
    s = solve(project.model("littles-law"), project=project)
    steps = derive(s)
    lines = text_lines(s)
    assert [st.unknowns for st in steps] == [("latency",), ("in_system",), ("decoding",), ("token_rate",)]
    assert sum(line.startswith("step ") for line in lines) == len(steps)
    assert "  latency = ttft + tpot*(output_tokens - 1 token)" in lines
    assert "    = 0.5 s + (25 ms/token)*(300 token - 1 token)" in lines
    assert "  token_rate = 2,990 token/s" in lines


def test_explain_tables_and_aggregates(capsys):
    assert main(["solve", "hol-blocking", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "steps_before_short = sum(fcfs.short_waiting)" in out
    assert "fcfs_short_ttft = sum(fcfs.short_first_tokens)/short_count" in out
    assert "= 17.97 s/10" in out
