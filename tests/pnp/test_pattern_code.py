"""Regular expressions compiled once and kept between runs (pnp.pattern_code, issue 36
item 1): a pattern made from kept code is the pattern `re` makes, and a second run
compiles none."""

from __future__ import annotations

import marshal
import os
import re
import re._compiler
import subprocess
import sys
from pathlib import Path

import pytest

from pnp import pattern_code

ROOT = Path(__file__).resolve().parents[2]

# (pattern, flags, texts to search): groups named and not, look-arounds, back-references,
# classes beyond Latin-1, case folding, verbose and multi-line patterns, bytes
PATTERNS = [
    (r"\s*(?:([{}\[\],])|(:)(?=[\s,\]}])|(\"(?:[^\"\\]|\\.)*\")|([^\s{}\[\],:\"]+))", 0,
     ['{a: "b\\"c", d: [1, 2]}', " : ,", ""]),
    (r"(?P<word>[a-zé]+)-(?P=word)", re.I, ["Été-été x", "ab-ab-ab", "ab-cd"]),
    ("[\x7f-\x9f\u2028\u2029\ufffe\uffff\ud800-\udfff]", 0, ["a\u2028b", "plain", "\x85"]),
    (r"(?<=\d)(?!0)\d{2,}?", 0, ["a1234", "10", "x"]),
    (r"""^ \s* (\w+) \s* = \s* (.*?) \s* $  # key = value""", re.X | re.M,
     ["a = 1\n b=two  \n#c"]),
    (r"(a)|b(c)?", 0, ["ab", "bc", "d"]),
    (rb"[\x00-\x08]+(?P<tail>.)", re.S, [b"\x01\x02\n", b"none"]),
    (r"(?i:ABC)def", 0, ["abcdef", "ABCDEF"]),
]


@pytest.fixture
def kept(monkeypatch):
    """An empty set of kept patterns, with `re`'s own compile as the fallback."""
    monkeypatch.setattr(pattern_code, "_kept", {})
    monkeypatch.setattr(pattern_code, "_new", False)
    monkeypatch.setattr(pattern_code, "_real", re._compiler.compile)
    return pattern_code._kept


def _same(ours: re.Pattern, theirs: re.Pattern, texts: list) -> None:
    assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == (
        theirs.pattern, theirs.flags, theirs.groups, theirs.groupindex)
    for text in texts:
        assert [m.span() for m in ours.finditer(text)] == [m.span() for m in theirs.finditer(text)]
        assert [m.groups() for m in ours.finditer(text)] == [
            m.groups() for m in theirs.finditer(text)]
        assert ours.sub(lambda m: m.group(0)[::-1], text) == theirs.sub(
            lambda m: m.group(0)[::-1], text)


@pytest.mark.parametrize(("pattern", "flags", "texts"), PATTERNS)
def test_a_pattern_from_kept_code_is_the_pattern_re_makes(kept, pattern, flags, texts):
    theirs = re._compiler.compile(pattern, int(flags))
    first = pattern_code._compile(pattern, int(flags))          # compiled, then kept
    assert pattern_code._new and list(kept) == [(pattern, int(flags))]
    kept.update(marshal.loads(marshal.dumps(dict(kept))))      # as the next run reads it
    again = pattern_code._compile(pattern, int(flags))
    for ours in (first, again):
        _same(ours, theirs, texts)


def test_a_pattern_that_does_not_compile_raises_as_in_re_and_is_not_kept(kept):
    with pytest.raises(re.error, match="missing \\)"):
        pattern_code._compile("(a", 0)
    assert kept == {}


def test_a_parsed_pattern_goes_to_re(kept, monkeypatch):
    """re.Scanner hands re its own parsed pattern, not a text: not kept."""
    monkeypatch.setattr(re._compiler, "compile", pattern_code._compile)
    scanner = re.Scanner([(r"\d+", lambda s, t: int(t)), (r"\s+", None)])
    assert scanner.scan("1 22 333") == ([1, 22, 333], "")
    assert kept == {}


PROBE = ("import pnp.cli.process, pnp.pattern_code as p, re\n"
         "pnp.cli.process.speed_ups()  # as the `pnp` command does (not `import pnp`)\n"
         "re.compile(r'(?P<a>x+)y', re.I); import pnp.draw.fastyaml\n"
         "print(p._new, len(p._kept))")


def _run(cache: Path) -> list[str]:
    # a fresh process: what a start-up compiles (or finds kept) is the point
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(cache)}
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_a_second_run_compiles_no_pattern(tmp_path):
    first = _run(tmp_path)
    assert first[0] == "True" and int(first[1]) > 5
    assert [p.name for p in tmp_path.glob("re-code-*")]
    assert _run(tmp_path) == ["False", first[1]]


def test_a_damaged_file_means_compiling_again(tmp_path):
    _run(tmp_path)
    for kept_file in tmp_path.glob("re-code-*"):
        kept_file.write_bytes(b"\x00not marshal")
    assert _run(tmp_path)[0] == "True"
    assert not [p for p in tmp_path.iterdir() if ".marshal." in p.name]   # no partial left
