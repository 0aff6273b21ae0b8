"""docs/RULES.md and docs/DESIGN.md say what the code does: the rule ids rulings cite, the rule
settings and their defaults, the event kinds, the ruling fields; and the README's apt line is
the one .ci/run installs."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shlex
from pathlib import Path

from referee.eventlog import parse_lines
from referee.events import CALL_WORDS, EVENT_KINDS
from referee.rules import RuleSet
from referee.rulings import INFO_RULES, PENALTY_RULES
from referee.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
DESIGN = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The body of the Markdown section `heading` (up to the next heading of its level)."""
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    assert match, f"no section {heading!r}"
    level = len(match.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, match.end())
    return text[match.end():end.start() if end else len(text)]


def table_rows(text: str) -> list[list[str]]:
    """The cells of every Markdown table row in `text`, header and rule lines left out."""
    rows = []
    for line in (raw.strip() for raw in text.splitlines()):
        if line.startswith("|") and not re.match(r"^\|[\s\-|]+\|$", line):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[1:] if rows else rows


def rule_ids() -> list[str]:
    return re.findall(r"^- \*\*([BPS]\d+)\*\*", RULES, re.M)


def test_the_rules_page_defines_every_id_once():
    ids = rule_ids()
    assert sorted(ids) == sorted([f"B{n}" for n in range(1, 12)] + [f"P{n}" for n in range(1, 5)]
                                 + [f"S{n}" for n in range(1, 4)])


def variant_rule_ids() -> list[str]:
    """The ids the other games' pages (docs/rules/) define."""
    return [rule_id for page in sorted((ROOT / "docs" / "rules").glob("*.md"))
            for rule_id in re.findall(r"^- \*\*([A-Z]\d+)\*\*", page.read_text(), re.M)]


def test_the_report_quotes_a_text_for_every_rule_of_the_rules_pages():
    assert variant_rule_ids()  # the other games' pages are read at all
    texts = {ref for variant in VARIANTS for ref in variant.rule_texts}
    assert texts == set(rule_ids()) | set(variant_rule_ids())


def test_each_game_quotes_the_rules_of_its_own_page():
    for variant in VARIANTS:
        page = RULES if variant.name == "bruno" else \
            (ROOT / "docs" / "rules" / f"{variant.name}.md").read_text(encoding="utf-8")
        ids = re.findall(r"^- \*\*([A-Z]\d+)\*\*", page, re.M)
        assert ids, variant.name
        assert set(variant.rule_texts) == set(ids), variant.name


def cited_refs() -> set[str]:
    """Every rule id that appears as a string constant in the referee's code."""
    refs = set()
    for path in (ROOT / "referee").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"[BPS]\d+", node.value):
                refs.add(node.value)
    return refs


def test_every_id_the_referee_cites_is_on_the_rules_page():
    refs = cited_refs()
    assert refs >= {"B2", "B7", "B8", "P3"}  # the scan finds them at all
    assert refs <= set(rule_ids())


def test_the_cited_ids_table_names_every_penalty_and_only_ids_the_referee_cites():
    rows = table_rows(section(RULES, "Which id a penalty cites"))
    assert [row[0].strip("`") for row in rows] == list(PENALTY_RULES)
    for _, refs in rows:
        assert set(re.findall(r"\b[BPS]\d+\b", refs)) <= cited_refs()


def documented_default(text: str):
    """'null (off)' -> None, 'true' -> True, '0.3' -> 0.3."""
    word = text.split()[0]
    words = {"null": None, "true": True, "false": False}
    return words[word] if word in words else float(word)


def test_the_rule_settings_table_is_the_rule_set_with_its_defaults():
    rows = table_rows(section(RULES, "Rule settings"))
    documented = {row[0].strip("`"): documented_default(row[1]) for row in rows}
    defaults = {f.name: f.default for f in dataclasses.fields(RuleSet)}
    assert list(documented) == list(defaults)
    assert documented == defaults


def test_the_readme_names_every_rule_setting():
    text = section(README, "Rule settings")
    assert [name for name in RuleSet.setting_names() if f"`{name}`" not in text] == []


def test_the_design_page_lists_every_event_kind_call_word_and_ruling_rule():
    observations = [row[0].strip("`") for row in table_rows(section(DESIGN, "Observations"))]
    corrections = section(DESIGN, "Corrections")
    assert set(observations) | {k for k in ("correct", "undo", "confirm")
                                if f"`{k}`" in corrections} \
        == set(EVENT_KINDS)
    for word in CALL_WORDS:
        assert f"`{word}`" in section(DESIGN, "Observations")
    info = [row[0].strip("`") for row in table_rows(section(DESIGN, "Rulings"))]
    assert info == list(INFO_RULES)
    assert all(f"`{rule}`" in section(DESIGN, "Rulings") for rule in PENALTY_RULES)


def json_blocks(text: str) -> list[list[str]]:
    return [block.strip().splitlines()
            for block in re.findall(r"^```json\n(.*?)^```", text, re.M | re.S)]


def test_the_event_log_examples_are_valid_logs():
    for text in (section(DESIGN, "The event log"), section(README, "The event log")):
        log = parse_lines(json_blocks(text)[0], source="example")
        assert log.setup.players == 4 and log.events


def test_the_ruling_examples_have_the_contract_keys_in_order():
    for line in json_blocks(section(DESIGN, "Rulings"))[0]:
        ruling = json.loads(line)
        keys = list(ruling)
        if ruling["kind"] == "ruling":
            assert keys == ["t", "kind", "rule", "seat", "penalty", "card", "ref", "confidence",
                            "message"]
            assert ruling["rule"] in PENALTY_RULES and ruling["ref"] in rule_ids()
        else:
            assert keys[:4] == ["t", "kind", "rule", "seat"] and keys[-1] == "message"
            assert ruling["rule"] in INFO_RULES


def apt_packages(text: str) -> set[str]:
    """The packages of the first `apt-get install` command in a shell text (backslash
    continuations joined, options left out)."""
    joined = text.replace("\\\n", " ")
    match = re.search(r"apt-get install ([^\n>|;&]*)", joined)
    assert match, "no apt-get install line"
    return {word for word in shlex.split(match.group(1)) if not word.startswith("-")}


def test_the_readme_apt_line_installs_what_ci_installs():
    ci = apt_packages((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert {"chromium", "chromium-driver", "espeak-ng"} <= ci
    assert apt_packages(section(README, "What `make test` needs")) == ci
