"""Recalculate workbooks with LibreOffice headless, forcing every formula to be recomputed.

By default LibreOffice keeps a formula's cached value from the file; a fresh
user profile whose registrymodifications.xcu sets OOXMLRecalcMode and
ODFRecalcMode to 0 ("always") makes it recompute every cell. soffice exits 0
even when a conversion fails, so the output files are checked.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        raise RuntimeError("LibreOffice (soffice) is not installed: apt-get install libreoffice-calc-nogui")
    return exe


def convert(inputs: list[Path], outdir: Path, target: str = 'xlsx:"Calc MS Excel 2007 XML"', timeout: float = 180) -> list[Path]:
    """Convert (and so recalculate) the files in one soffice call; returns the outputs, which must exist."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    ext = target.split(":", 1)[0]
    outs = [outdir / (Path(p).stem + "." + ext) for p in inputs]
    for o in outs:
        o.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="chainc-lo-") as prof:
        user = Path(prof) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(PROFILE)
        cmd = [soffice(), f"-env:UserInstallation=file://{prof}", "--headless", "--norestore", "--convert-to", target.replace('"', ""), "--outdir", str(outdir), *map(str, inputs)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    missing = [str(o) for o in outs if not o.exists()]
    if missing:
        raise RuntimeError(f"LibreOffice did not write {', '.join(missing)}: {proc.stdout} {proc.stderr}")
    return outs


def recalculate(inputs: list[Path], outdir: Path) -> list[Path]:
    return convert(inputs, outdir)
