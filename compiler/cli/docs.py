"""`chainc docs [TOPIC]`: the manual, from the installed package, for those who never saw the repository.

The pages are the repository's README.md and docs/*.md, copied into the wheel beside the
bundled library (setup.py); an editable install reads them from the source tree. They are
printed as written (Markdown), so `chainc docs model-format | less` reads as the file does.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..errors import ArgumentError
from ..project import Project, bundled_root
from ..suggest import close_names


def pages() -> dict[str, Path]:
    """topic -> page: readme (the tour), then docs/*.md by name."""
    root = bundled_root()
    found = {"readme": root / "README.md"} if (root / "README.md").is_file() else {}
    found.update({p.stem: p for p in sorted((root / "docs").glob("*.md"))})
    return found


def heading(path: Path) -> str:
    if path.name == "README.md":
        return "The tour: set-up, the first commands, every bundled chain"
    first = next((ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("# ")), "# " + path.stem)
    return first[2:].strip()


def cmd_docs(args, project: Project | None, out: Console) -> int:
    found = pages()
    if args.topic is None:
        width = max(map(len, found), default=0)
        for topic, path in found.items():
            print(f"{topic.ljust(width)}  {heading(path)}")
        print("\nchainc docs TOPIC prints a page (Markdown), e.g. chainc docs model-format")
        return 0
    page = found.get(args.topic.removesuffix(".md").lower())
    if page is None:
        close = close_names(args.topic.lower(), found)
        raise ArgumentError(f"no docs page '{args.topic}'", None, (f"did you mean {' or '.join(close)}? " if close else "") + f"pages: {', '.join(found)} (chainc docs)")
    print(page.read_text(encoding="utf-8"), end="")
    return 0
