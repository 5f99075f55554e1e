"""The Python backend: each chain becomes a standalone module of plain functions that print its Programs.

`chainc build --format py` writes `<module>.py` per chain (`hol-blocking` ->
`hol_blocking.py`; see names.module_name) and, with `--numpy`, `<module>_np.py`.
A module holds the catalog (`GPUS`, `LLMS`, the default entry's values as
constants), `solve(**inputs)` returning a frozen `Solution` in display units, one
function per question, and the build's `--find/--given` query. Every number comes
from the same Program the solver runs: each is printed once as a private
function (statements.py, vector.py for NumPy, exprs.py for expressions), and the
rules they share with the solver are the runtime's own source, copied
(runtime.py). The package: names.py (identifiers and text), exprs.py, statements.py,
vector.py, questions.py, module.py (assembly), context.py (what a module knows).

Whatever the printers cannot print is collected over every model of the build and
raised as one PythonBackendError, before any file is written.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import ChaincError, Loc
from .. import BuildOptions, write_atomic
from .module import Module
from .names import NotAFloat
from .names import module_name as _module_name


class PythonBackendError(ChaincError, ValueError):
    """The model uses something the Python backend cannot print (or two models would write one module)."""


def module_name(model) -> str:
    """The module a model compiles to (a Model or its name): `hol-blocking` -> `hol_blocking`."""
    return _module_name(model if isinstance(model, str) else model.name)


def render(report, catalog, options: BuildOptions, numpy: bool = False) -> str:
    """One module's source for a Report; raises PythonBackendError listing everything it could not print."""
    module = Module(report, catalog, options, numpy)
    try:
        text = module.render()
    except NotAFloat as e:  # a value the module's floats cannot hold
        module.gaps.append((str(e), None))
    if module.gaps:
        raise _gap_error(report.model, module.gaps, "NumPy" if numpy else "Python")
    return text


def _gap_error(model, gaps: list, backend: str) -> PythonBackendError:
    """One error for everything the printers could not print: located at the first, naming each with its place."""
    found: dict[tuple, tuple] = {}
    for construct, site in gaps:
        loc = site.loc if site is not None else None
        found.setdefault((construct, str(loc), site.what if site is not None else ""), (construct, loc, site))
    items = list(found.values())
    loc = next((loc for _, loc, _ in items if loc is not None), model.loc)
    hint = "build the other formats, or rewrite the equation without it"
    if len(items) == 1:
        construct, _, site = items[0]
        what = f" ({site.what})" if site is not None else ""
        return PythonBackendError(f"the {backend} backend cannot print {construct}{what} in model '{model.name}'", loc if isinstance(loc, Loc) else None, hint)
    lines = [f"{where}: {construct}" if where is not None else construct for construct, where, _ in items]
    lines = [line + (f" ({site.what})" if site is not None else "") for line, (_, _, site) in zip(lines, items)]
    return PythonBackendError(f"the {backend} backend cannot print {len(items)} constructs of model '{model.name}': " + "; ".join(lines), loc if isinstance(loc, Loc) else None, hint)


def outputs(reports: list, numpy: bool) -> dict[str, tuple[object, bool]]:
    """File name -> (report, NumPy flavour), each model once; two models that would write the same file are an error."""
    out: dict[str, tuple[object, bool]] = {}
    for r in reports:
        name = module_name(r.model.name)
        for file, flavour in [(f"{name}.py", False)] + ([(f"{name}_np.py", True)] if numpy else []):
            other = out.get(file, (None, False))[0]
            if other is not None and other is not r:
                raise PythonBackendError(
                    f"models '{other.model.name}' ({other.model.path}) and '{r.model.name}' ({r.model.path}) both compile to the Python module {file}",
                    r.model.loc,
                    "module names replace '-' and '.' with '_' (and add _chain to a standard-library name); rename one of the models",
                )
            out[file] = (r, flavour)
    return out


def build(reports: list, catalog, fmt: str, options: BuildOptions) -> list[Path]:
    files = outputs(reports, options.numpy)
    texts, errors = [], []
    for file, (report, flavour) in files.items():  # everything first: no partial output on an error
        try:
            texts.append((options.out / file, render(report, catalog, options, numpy=flavour)))
        except PythonBackendError as e:
            errors.append(e)
    if errors:
        if len(errors) == 1:
            raise errors[0]
        raise PythonBackendError("; ".join(e.message for e in errors), errors[0].loc, errors[0].hint)
    for path, text in texts:
        write_atomic(path, text.encode("utf-8"))
    return [path for path, _ in texts]


__all__ = ["PythonBackendError", "build", "module_name", "render"]
