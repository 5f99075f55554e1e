"""The workbook prints readably: every page of LibreOffice's PDF of it has body text at >= 8 pt.

Measured as the issue measured it: the median height of the words on a page, from
`pdftotext -bbox`. Fitting 13 columns of long text onto one page width had shrunk
goodput's sheet to 4.7 pt; text columns now wrap within a print width, and a sheet of
numbers wider than a page prints on pages across at a fixed scale.
"""

from __future__ import annotations

import re
import statistics
import subprocess

import pytest

from chainc.backends.excel import build_workbook

from .test_excel import all_reports
from .tools import require

pytestmark = pytest.mark.slow
WORD = re.compile(r'<word xMin="[^"]+" yMin="([^"]+)" xMax="[^"]+" yMax="([^"]+)">([^<]*)</word>')


def test_every_printed_page_has_text_of_at_least_8_pt(project, tmp_path):
    tools = require("soffice", "pdftotext")
    from .excel_recalc import convert

    data, _ = build_workbook(*all_reports(project))
    (tmp_path / "chains.xlsx").write_bytes(data)
    (pdf,) = convert([tmp_path / "chains.xlsx"], tmp_path / "pdf", target="pdf")
    html = subprocess.run([tools["pdftotext"], "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = re.split(r"<page ", html)[1:]
    assert len(pages) >= 12  # the cover, the catalog and a page or more per chain
    small = []
    for k, page in enumerate(pages, 1):
        words = WORD.findall(page)
        if len(words) < 10:  # a page of a few words (the end of a table) has no body text to measure
            continue
        median = statistics.median(float(b) - float(a) for a, b, _ in words)
        if median < 8:
            small.append(f"page {k} ({' '.join(w for _, _, w in words[:5])}): median word height {median:.2f} pt")
    assert not small, "\n".join(small)
