"""What a model's answers depend on: every file whose change could change them, for the plan cache's key.

The model file; every model it imports or joins (`uses: models:`), by id or by a
path next to it, transitively; every catalog entry it reads (the chosen one, the
model's default, the importer's for a joined model) and `fields.yaml`; and, for
each id, the file of that name in every layer, so that a file appearing in an
earlier layer (a project's own `hardware/gpus/h100-sxm.yaml`) is noticed. A path
is recorded as written and as resolved, so a symlink pointed elsewhere is noticed
too. Over-including is safe (an entry is rebuilt more often); missing a file is not.
"""

from __future__ import annotations

from pathlib import Path

from .catalog import KINDS

UNRESOLVED = Path()  # not absolute: cache.store writes no entry whose dependencies it could not name


def dependencies(project, model, gpu: str | None, llm: str | None) -> list[Path]:
    """Every file a model's answers read, and the files that would take their place if they appeared."""
    return dependencies_of(project, [(model, gpu, llm)])


def dependencies_of(project, roots) -> list[Path]:
    """dependencies() of several (model, gpu, llm) at once: a model they share is walked once, not once per root.

    (`chainc check` of a chain of n imports walked the chain n times: n² file reads.)
    """
    deps: list[Path] = []
    seen: set[tuple] = set()
    imported: dict[Path, list] = {}  # a file -> the models it imports, read once

    def by_id(kind_folder: str, name: str) -> None:
        deps.extend(layer.root / kind_folder / f"{name}.yaml" for layer in project.layers)

    def entries(kind: str, ids) -> None:
        folder = f"hardware/{KINDS[kind]}"
        deps.extend(layer.root / folder / "fields.yaml" for layer in project.layers)
        for entry_id in sorted({i for i in ids if i}):
            by_id(folder, entry_id)
            found = project.catalog.path(kind, entry_id)
            if found is not None:
                deps.append(found)

    todo = list(reversed(roots))  # a stack, not recursion: a chain of imports may be thousands deep (order.py)
    while todo:
        m, gpu, llm = todo.pop()
        path = Path(m.path).resolve()
        if (path, gpu, llm) in seen:  # the hardware too: a model imported on two GPUs reads both entries
            continue
        seen.add((path, gpu, llm))
        deps.append(path)
        by_id("models", path.stem)
        entries("gpu", (gpu, m.gpu))
        entries("llm", (llm, m.llm))
        gpu, llm = gpu or m.gpu, llm or m.llm  # what the model runs on: a joined model runs on it too
        if path not in imported:
            imported[path] = _imported(project, path, deps)
        more = [(other, gpu, llm) for other in imported[path]]
        more += [(other, gpu if other.gpu else None, llm if other.llm else None) for _, other in m.imports]
        todo.extend(reversed(more))  # visited in the order written
    return deps


def _imported(project, path: Path, deps: list[Path]) -> list:
    """The models a file names under `uses: models:` (value imports and joins), resolved as loading resolves them."""
    from .source import load_yaml

    try:
        uses = load_yaml(path).data.get("uses") or {}
        out = []
        for spec in (uses.get("models") or {}).values():
            name = str(spec["model"] if isinstance(spec, dict) else spec)
            if name.endswith(".yaml") or "/" in name:
                deps.append(path.parent / name)  # as written: a symlink there that is pointed elsewhere changes its digest
            out.append(project.imported(name, None, near=path.parent))
        return out
    except Exception:  # noqa: BLE001 - the file changed since it loaded (or cannot be read now): remember nothing
        deps.append(UNRESOLVED)
        return []
