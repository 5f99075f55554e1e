"""LaTeX derivation sheets (`--format tex`) and their PDFs (`--format pdf`), one module per concern.

- escape.py: prose, symbols and identifiers as LaTeX (nothing a model says is glued in as is);
- units.py: units and numbers for siunitx;
- printer.py: SymPy -> LaTeX with the model's symbols, and breaking long lines;
- views.py: the parts of a Sheet as the values the templates print;
- assemble.py: rendering the templates (templates/*.j2) and the figures, writing the build;
- compile.py: pdflatex, in a temporary folder, without shell escape, reproducibly.

Same inputs, same bytes: the .tex is printed from sorted data, the figures carry no
dates, and pdflatex runs with SOURCE_DATE_EPOCH, \\pdfinfoomitdate and an empty \\pdftrailerid.
"""

from __future__ import annotations

from .assemble import Built, build, build_documents, render
from .compile import Compiled, LatexError, compile_documents, compile_one, tex_environment, tools_or_unavailable

__all__ = ["Built", "Compiled", "LatexError", "build", "build_documents", "compile_documents", "compile_one", "render", "tex_environment", "tools_or_unavailable"]
