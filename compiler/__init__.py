"""chainc: a spreadsheet-style compiler for chains of LLM-serving capacity math.

    from chainc import Project, solve, ask
    project = Project()                 # found as the CLI finds it (--root, CHAINC_ROOT, upward, bundled)
    model = project.model("goodput")
    solution = solve(model, {"batch": 128}, project=project)
    solution.display("tpot")            # 15.05 (ms/token)
    ask(model, "max_batch", project=project).value   # 64

The source folder is `compiler/`; it is installed and imported as `chainc`.
"""

from .api import ask, run_checks, solve
from .errors import ChaincError, ModelError, SolveError, StructureError, UnitError
from .project import Project
from .results import Answer, Solution

__version__ = "0.1.0"

__all__ = ["Answer", "ChaincError", "ModelError", "Project", "Solution", "SolveError", "StructureError", "UnitError", "ask", "run_checks", "solve", "__version__"]
