"""chainc: a spreadsheet-style compiler for chains of LLM-serving capacity math.

    import chainc
    r = chainc.solve("goodput", batch=128, gpu="h200")   # the project is found as the CLI finds it
    r["tpot"]                        # 10.5 millisecond / token (a pint Quantity, in the display unit)
    r.value("tpot")                  # 10.504... (a float in the display unit)
    chainc.ask("goodput", "max_batch").answer()           # 64
    chainc.evaluate("goodput")       # a Report: values, every question's answer, every check

The source folder is `compiler/`; it is installed and imported as `chainc`.
"""

from .api import ask, evaluate, run_checks, solve
from .errors import ChaincError, ModelError, SolveError, StructureError, UnitError
from .project import Project
from .results import Answer, Report, Solution

__version__ = "0.1.0"

__all__ = ["Answer", "ChaincError", "ModelError", "Project", "Solution", "SolveError", "StructureError", "UnitError", "Report", "ask", "evaluate", "run_checks", "solve", "__version__"]
