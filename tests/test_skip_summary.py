"""The test run's last line says what was skipped and why (tests/skip_summary.py, loaded by
tests/conftest.py), checked on small runs of pytest inside pytest."""

from pathlib import Path

import pytest
from skip_summary import need_of, summary_line

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).with_name("conftest.py")).read_text(encoding="utf-8")

SKIPPING = '''
import shutil
import pytest

needs_data = pytest.mark.skipif(True, reason="shared data not found at /x (set BRUNO_SHARED_DATA)")

@pytest.mark.skipif(True, reason="espeak-ng is not installed")
@pytest.mark.parametrize("lang", ["en", "sv"])
def test_speech(lang):
    pass

@pytest.fixture
def browser():
    pytest.skip("no headless browser: /usr/bin/chromedriver missing (apt-get install chromium "
                "chromium-driver)")

def test_dashboard(browser):
    pass

def test_report():
    pytest.skip("Debian's chromium is not installed (.ci/run installs it)")

@needs_data
def test_clip_one():
    pass

@needs_data
def test_clip_two():
    pass

@needs_data
def test_clip_three():
    pass

def test_unforeseen():
    pytest.skip("the moon is not full")

def test_that_runs():
    assert True
'''


def test_the_run_ends_with_one_line_grouping_the_skips_by_what_they_need(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_skips=SKIPPING)
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=8)
    assert result.outlines[-1] == (
        "skipped 8: 3 need ../shared/data, 2 need espeak-ng, 1 needs chromium-driver, "
        "1 needs chromium, 1 because 'the moon is not full'")
    assert result.outlines[-2].startswith("1 passed, 8 skipped")


def test_a_run_that_skips_nothing_says_nothing_more(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fine="def test_fine():\n    assert True\n")
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert not any(line.startswith("skipped") for line in result.outlines)
    assert result.outlines[-1].startswith("1 passed")


def test_a_failing_run_still_says_what_it_skipped(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mixed='''
import pytest

def test_fails():
    assert False

@pytest.mark.skipif(True, reason="espeak-ng is not installed")
def test_speech():
    pass
''')
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=1)
    assert result.outlines[-1] == "skipped 1: 1 needs espeak-ng"


@pytest.mark.parametrize(("reason", "need"), [
    ("no headless browser for the dashboard tests: /usr/bin/chromium, /usr/bin/chromedriver "
     "missing (apt-get install chromium chromium-driver)", "chromium-driver"),
    ("Debian's chromium is not installed (.ci/run installs it)", "chromium"),
    ("espeak-ng is not installed", "espeak-ng"),
    ("shared data (../shared/data or $BRUNO_SHARED_DATA) or card model absent",
     "../shared/data"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf is not installed (Debian's "
     "fonts-dejavu-core)", "fonts-dejavu-core"),
    ("no shipped card model", "the card model (models/cards.onnx)"),
])
def test_the_suites_own_skip_reasons_are_named_by_what_they_need(reason, need):
    assert need_of(reason) == need


def test_nothing_skipped_is_no_line():
    assert summary_line([]) is None
