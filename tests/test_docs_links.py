"""Every relative link in the project's Markdown resolves: README.md, docs/ and the other pages
in the repository link to files that exist, and an anchor (`FILE#heading`) to a heading that
the file has (GitHub's heading ids). A user's clone has nothing outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".git", ".venv", ".venv-train", "node_modules", ".pytest_cache", ".ruff_cache"}

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
HTML_ID = re.compile(r"<a\b[^>]*\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root: Path = ROOT) -> list[Path]:
    """README.md, docs/**/*.md and every other page of the repository (not the venvs)."""
    found = []
    for path in sorted(root.rglob("*.md")):
        if not SKIP_DIRS.intersection(path.relative_to(root).parts[:-1]):
            found.append(path)
    return found


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code blanked (their brackets are no links)."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return INLINE_CODE.sub("", text)


def links(text: str) -> list[str]:
    """Every link and image target of a Markdown text, in order."""
    text = without_code(text)
    targets = INLINE_LINK.findall(text) + REFERENCE_DEF.findall(text) + HTML_LINK.findall(text)
    return [t for t in targets if t]


def slug(heading: str) -> str:
    """GitHub's id for a heading: the text as rendered (no code ticks, emphasis or link
    targets), lower case, punctuation dropped, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The ids a page's headings get (a repeated heading gets -1, -2, ...), and explicit ids."""
    seen: dict[str, int] = {}
    ids = set(HTML_ID.findall(text))
    for _, heading in HEADING.findall(without_code_fences(text)):
        base = slug(heading)
        n = seen.get(base, 0)
        ids.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return ids


def without_code_fences(text: str) -> str:
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of one page, one line each (empty: all good)."""
    text = page.read_text(encoding="utf-8")
    problems = []
    for target in links(text):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # another site, or mailto: nothing in the repository to check
        path_part, _, anchor = target.partition("#")
        path_part = path_part.split("?", 1)[0]
        if path_part.startswith("/"):
            problems.append(f"{target}: an absolute path; link relative to the page")
            continue
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            problems.append(f"{target}: no such file ({dest})")
            continue
        if not dest.is_relative_to(root.resolve()):
            problems.append(f"{target}: outside the repository (a user's clone lacks it)")
            continue
        if anchor and dest.is_file() and dest.suffix == ".md" \
                and anchor not in anchors(dest.read_text(encoding="utf-8")):
            problems.append(f"{target}: {dest.name} has no heading #{anchor}")
    return problems


def test_the_readme_and_the_docs_are_among_the_pages_checked():
    pages = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "docs/RULES.md", "docs/DESIGN.md"} <= pages


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_the_readme_links_to_the_rules_and_the_design():
    targets = links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(t.startswith("docs/RULES.md") for t in targets)
    assert any(t.startswith("docs/DESIGN.md") for t in targets)


def test_no_page_points_outside_the_repository_to_the_shared_docs():
    for page in markdown_files():
        assert "shared/docs" not in page.read_text(encoding="utf-8"), page


# --- the checker itself: it must find what is broken ---------------------------------------

def test_a_missing_file_a_missing_heading_and_a_link_outside_are_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "RULES.md").write_text("# Rules\n\n## Knock timing\n\n## STOP\n")
    (tmp_path / "pic.png").write_bytes(b"")
    page = tmp_path / "README.md"
    page.write_text(
        "Fine: [rules](docs/RULES.md), [knocks](docs/RULES.md#knock-timing), ![a\npicture]"
        "(pic.png), [top](#intro), [web](https://example.org/x.md).\n"
        "`[in code](nowhere.md)` and\n```\n[in a block](nowhere.md)\n```\n"
        "# Intro\n"
        "Broken: [gone](docs/DESIGN.md), ![img](docs/shot.png \"title\"), "
        "[bad anchor](docs/RULES.md#knocking), [shared](../shared/docs/RULES.md), "
        "[self](#outro).\n\n[ref]: docs/MISSING.md\n")
    problems = broken_links(page, root=tmp_path)
    assert [p.split(":")[0] for p in problems] == [
        "docs/DESIGN.md", "docs/shot.png", "docs/RULES.md#knocking",
        "../shared/docs/RULES.md", "#outro", "docs/MISSING.md"]


@pytest.mark.parametrize(("heading", "expected"), [
    ("Replaying an event log: `bruno replay`", "replaying-an-event-log-bruno-replay"),
    ("Instick (jumping in) and knocking", "instick-jumping-in-and-knocking"),
    ("The command line (`bruno`)", "the-command-line-bruno"),
    ("What `make test` needs", "what-make-test-needs"),
    ("Scoring (end of a round)", "scoring-end-of-a-round"),
    ("`first_card_needs_knock` and *more*", "first_card_needs_knock-and-more"),
])
def test_headings_get_githubs_ids(heading, expected):
    assert slug(heading) == expected


def test_a_repeated_heading_gets_a_numbered_id():
    assert {"notes", "notes-1"} <= anchors("## Notes\n\ntext\n\n## Notes\n")
