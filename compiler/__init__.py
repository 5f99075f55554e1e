"""chainc: a spreadsheet-style compiler for chains of LLM-serving capacity math.

    import chainc
    r = chainc.solve("goodput", batch=128, gpu="h200")   # the project is found as the CLI finds it
    r["tpot"]                        # 10.5 millisecond / token (a pint Quantity, in the display unit)
    r.value("tpot")                  # 10.504... (a float in the display unit)
    r.display("tpot")                # 10.5, rounded as the CLI prints it
    chainc.ask("goodput", "max_batch").value              # 64 (an int: batch is a whole number)
    chainc.ask("erlang-c", "max_arrival_rate").value      # 12.37 (requests per minute); .base is exact, per second
    chainc.evaluate("goodput")       # a Report: values, every question's answer, every check
    print(chainc.explain(r))         # the derivation: every step with its formula and numbers

The source folder is `compiler/`; it is installed and imported as `chainc`.
"""

__version__ = "0.1.0"

# The public names, imported on first use (PEP 562): `chainc` on the command line starts
# without SymPy or pint when its answer is cached (the warm path).
_EXPORTS = {
    "ask": "api", "evaluate": "api", "explain": "api", "run_checks": "api", "solve": "api",
    "ChaincError": "errors", "ModelError": "errors", "SolveError": "errors", "StructureError": "errors", "UnitError": "errors",
    "Project": "project", "Answer": "results", "Report": "results", "Solution": "results",
}  # fmt: skip

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'chainc' has no attribute {name!r}")
