"""Recalculate workbooks with Gnumeric's ssconvert, beside excel_recalc.py's LibreOffice.

`ssconvert --recalc` recomputes every formula before it writes; like soffice it can
exit 0 without writing, so each output file is checked (stale outputs deleted first).
One ssconvert process per file: it converts one input per call.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def ssconvert() -> str:
    exe = shutil.which("ssconvert")
    if exe is None:
        raise RuntimeError("Gnumeric (ssconvert) is not installed: apt-get install gnumeric")
    return exe


def recalculate_gnumeric(inputs: list[Path], outdir: Path, timeout: float = 180) -> list[Path]:
    """Recalculate each file and save it as xlsx (Gnumeric's Excel 2007 writer); returns the outputs, which must exist."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    outs = []
    with tempfile.TemporaryDirectory(prefix="chainc-gnm-") as home:
        env = {**os.environ, "HOME": home}  # its settings go into a throwaway home, never the user's
        for p in inputs:
            out = outdir / (Path(p).stem + ".gnumeric.xlsx")
            out.unlink(missing_ok=True)
            proc = subprocess.run([ssconvert(), "--recalc", "--export-type=Gnumeric_Excel:xlsx2", str(p), str(out)], capture_output=True, text=True, timeout=timeout, env=env)
            if not out.exists():
                raise RuntimeError(f"Gnumeric did not write {out}: {proc.stdout} {proc.stderr}")
            outs.append(out)
    return outs
