"""validation/README.md's index of rules is current: every rule heading is in it, in order, with its outcome."""

import importlib.util
from pathlib import Path

VALIDATION = Path(__file__).resolve().parents[1] / "validation"


def _index_rules():
    spec = importlib.util.spec_from_file_location("index_rules", VALIDATION / "index_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rules_index_is_current():
    """A rule added without ``python validation/index_rules.py`` fails here."""
    index_rules = _index_rules()
    text = (VALIDATION / "README.md").read_text()
    assert index_rules.render(text) == text


def test_the_index_links_each_rule_to_its_heading_and_reads_its_outcome():
    index_rules = _index_rules()
    text = "\n".join(["# Doc", "### A rule (rule written 2026-11-30, before it was built)",
                      "#### What it gave (x): adopted", "```", "### Not a heading (rule written 2026-11-30)", "```",
                      "### A rule (rule written 2026-12-01)", "## Misses", "#### What x gave (y): adopted",
                      "<!-- rules-index -->", "<!-- /rules-index -->"])
    assert index_rules.rules(text) == [
        ("A rule", "a-rule-rule-written-2026-11-30-before-it-was-built", "2026-11-30", "adopted"),
        ("A rule", "a-rule-rule-written-2026-12-01", "2026-12-01", "-")]
    assert "| 2 | [A rule](#a-rule-rule-written-2026-12-01) | 2026-12-01 | - |" in index_rules.render(text)
    assert index_rules.slug("What `lab/window7` decided: A stays", {}) == "what-labwindow7-decided-a-stays"
    seen = {}
    assert [index_rules.slug("Misses", seen) for _ in range(3)] == ["misses", "misses-1", "misses-2"]
