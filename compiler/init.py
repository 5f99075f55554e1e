"""`chainc init`: a project of one's own, on top of the bundled library."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .errors import ArgumentError
from .project import CONFIG

CONFIG_TEXT = """\
# A chainc project. chainc finds it from this folder or any folder below it.
# models/    your chains, one YAML file each (chainc check, chainc solve NAME)
# hardware/  optional: gpus/*.yaml and llms/*.yaml of your own, layered over the
#            bundled catalog (an entry with a bundled id replaces it here)
# `chainc list` shows every model and catalog entry and the folder it comes from.

[project]
name = "{name}"
"""

EXAMPLE = """\
# An example chain: how long one decode step takes when it is bound by memory
# bandwidth. It reads an H100 and Llama 3.1 8B from the bundled catalog
# (`chainc list` shows the ids; `--gpu h200` swaps the GPU on the command line).
#
#   chainc check                                   # run the checks below
#   chainc solve example                           # solve forward
#   chainc solve example --find batch --given tpot=10ms   # the batch for a target
#
# `chainc docs model-format` describes the format; `chainc schema`
# prints it as a JSON Schema for editors, and `chainc solve goodput --explain`
# shows a bundled chain step by step.
name: example
title: Time per output token of a memory-bound decode step
uses: {gpu: h100-sxm, llm: llama-3.1-8b}
variables:
  weight_bytes: {unit: GB, value: llm.weight_bytes, description: weights read every step}
  kv_bytes_per_token: {unit: KiB/token, value: llm.kv_bytes_per_token, description: KV cache per token}
  bandwidth: {unit: TB/s, value: gpu.memory_bandwidth, description: HBM bandwidth}
  batch: {unit: 1, value: 32, integer: true, description: sequences decoding together}
  context: {unit: token, value: 2048, description: tokens of context per sequence}
  step_bytes: {unit: GB, description: bytes read per decode step}
  tpot: {unit: ms/token, description: time per output token}
equations:
  - step_bytes = weight_bytes + batch * context * kv_bytes_per_token
  - tpot = step_bytes / bandwidth / 1[token]
checks:
  - about: "(16.06 GB + 32 x 2,048 tokens x 128 KiB) / 3.35 TB/s = 7.36 ms"
    expect: {tpot: 7.36 ms/token}
"""


def init(folder: Path) -> list[Path]:
    """Write chainc.toml and models/example.yaml into `folder`: all of it, or (refused, or failed) nothing.

    Everything that would stop the writing is checked first: a folder that is a file or a
    symlink, a chainc.toml or example.yaml that exists (a dangling symlink too), a models/
    that is not a folder. A write that still fails (permissions, a full disk) takes back
    what this call made.
    """
    folder = folder.expanduser()
    config, models = folder / CONFIG, folder / "models"
    example = models / "example.yaml"
    _refuse(folder, config, models, example)
    name = (folder.resolve().name or "chainc-project").replace('"', "")
    made: list[Path] = []  # what this call created, to take back if a step fails
    try:
        for d in reversed([models, *models.parents]):
            if not d.is_dir():
                d.mkdir()
                made.append(d)
        _write(config, CONFIG_TEXT.format(name=name), made)
        _write(example, EXAMPLE, made)
    except OSError as e:
        for path in reversed(made):
            with contextlib.suppress(OSError):
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        raise ArgumentError(f"cannot write into {folder}: {e.strerror}", None, "check the folder's permissions; nothing was written") from None
    return [config, example]


def _refuse(folder: Path, config: Path, models: Path, example: Path) -> None:
    """The reason, if any, that init must not write here; checked before anything is written."""
    other = "chainc init writes a new project into a folder; pick another folder"
    if folder.is_symlink():  # writes would land where the link points, or fail half-way if it points nowhere
        target = os.readlink(folder)
        if folder.is_dir():
            raise ArgumentError(f"{folder} is a symlink to {target}, not a folder", None, f"chainc init writes only into a folder named as it is: `chainc init {target}`, or pick another folder")
        raise ArgumentError(f"{folder} is a symlink to {target}, which does not exist", None, "remove the symlink, or pick another folder")
    for up in (folder, *folder.parents):  # the nearest part of the path that exists must be a folder
        if os.path.lexists(up):
            if not up.is_dir():
                raise ArgumentError(f"{up} is {'a file' if up.is_file() else 'a symlink to nowhere' if up.is_symlink() else 'not a folder'}, not a folder", None, other)
            break
    if os.path.lexists(models) and (models.is_symlink() or not models.is_dir()):
        raise ArgumentError(f"{models} is {'a symlink' if models.is_symlink() else 'a file'}, not a folder", None, other)
    for path in (config, example):
        if path.is_symlink():
            raise ArgumentError(f"{path} is a symlink", None, "chainc init never writes over a file or through a symlink; pick another folder")
        if path.exists():
            raise ArgumentError(f"{path} exists already", None, "chainc init writes into a folder without a chainc project; pick another folder")


def _write(path: Path, text: str, made: list[Path]) -> None:
    with open(path, "x", encoding="utf-8") as f:  # 'x': never overwrite
        made.append(path)
        f.write(text)
    os.chmod(path, 0o644)
