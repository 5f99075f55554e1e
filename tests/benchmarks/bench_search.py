"""The search row of `make bench`: 100,000 configurations with an inner integer question (issue 21).

A grid of 5 GPUs x 4 TP degrees x 5,000 context lengths; at each configuration the largest batch
(a whole number up to 4,096) that meets a TPOT target is answered first, then a memory condition
and the cost per token decide. The snippet runs in the checkout's own Python and prints the median
of its timed runs of the search alone (prepared once, then run), as JSON.
"""

from __future__ import annotations

MODEL = """\
name: grid100k
title: 100,000 configurations with an inner integer question
uses: {gpu: h100-sxm, llm: llama-3.1-70b}
variables:
  weight_bytes: {unit: GB, value: llm.weight_bytes}
  kv: {unit: B/token, value: llm.kv_bytes_per_token}
  bandwidth: {unit: TB/s, value: gpu.memory_bandwidth}
  memory: {unit: GB, value: gpu.memory}
  price: {unit: USD/h, value: gpu.price_per_hour}
  context: {unit: token, value: 2048}
  tp: {value: 8, integer: true, values: {from: 1, to: 64, step: x2}}
  batch: {value: 64, integer: true, min: 1, max: 4096}
  tpot_target: {unit: ms/token, value: 20}
  step_bytes: {unit: GB}
  tpot: {unit: ms/token}
  throughput: {unit: token/s}
  cost: {unit: USD/Mtoken}
equations:
  - step_bytes = (weight_bytes + batch * context * kv) / tp
  - tpot = (step_bytes / bandwidth + 0.01[ms] * tp) / 1[token]
  - throughput = batch / tpot
  - cost = tp * price / throughput
questions:
  max_batch: {find: batch, such_that: tpot <= tpot_target, seek: max}
  cheapest:
    over: {gpu: [h100-sxm, h200, l40s, a100-sxm-80gb, b200], tp: [1, 2, 4, 8], context: {from: 16, to: 80000, step: 16}}
    with: {batch: max_batch}
    such_that: {memory: step_bytes <= memory}
    seek: min cost
"""

SNIPPET = """\
import json, statistics, sys, time
from chainc.project import Project
from chainc.searches import prepare_search
from chainc.choosing import choose
project = Project()
model = project.model(sys.argv[1])
t = time.perf_counter(); pc = prepare_search(model, project.catalog, "cheapest", frozenset(), None, None); prep = time.perf_counter() - t
runs = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); c = choose(pc, {}); runs.append(time.perf_counter() - t)
print(json.dumps({"prepare": prep, "run": statistics.median(runs), "n": len(runs), "configurations": len(pc.configs), "answer": c.sentence()[:80]}))
"""
