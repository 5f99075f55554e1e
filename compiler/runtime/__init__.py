"""The rules every output shares, in plain standard-library Python.

The solver imports these functions; the Python backend copies their source into
the modules it generates (`inspect.getsource`), so a generated module answers a
question, picks a root, brackets a search and checks a domain exactly as the
solver does. Hence the constraints: only `math` and `fractions`, no imports of
the rest of chainc, ruff-clean as written, and number-agnostic (exact `Fraction`s
in the solver, floats in generated code).
"""
