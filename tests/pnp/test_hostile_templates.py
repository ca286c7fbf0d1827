"""The template budget holds inside one filter or global call (issue 25 item 4): each
call that can build an unbounded result is bounded or refused before it builds it, in
time and memory, the refusal located at the template's line."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from tests.pnp.hostile_support import one_line_error, pnp, project, stayed_inside  # noqa: E402

S = '{% set s = "x" * 100000 %}{% set big = [s] * 100000 %}\n'
PROBES = {
    "sum-start-list": ("{{ range(100000)|batch(1)|sum(start=[0]) }}", "builds a list of 100,001"),
    "lipsum": ("{{ lipsum(3000000) }}", "lipsum(3000000"),
    "lipsum-words": ("{{ lipsum(5, max=100000000) }}", "lipsum(5"),
    "string": (S + "{{ big|string }}", "more than 1,000,000 characters"),
    "join": (S + "{{ big|join }}", "more than 1,000,000 characters"),
    "join-generator": ('{{ range(100000)|map("center", 100000)|join }}', "yields more than"),
    "list": (S + "{{ big|list|length }}", "more than 1,000,000 characters"),
    "format-filter": (S + '{{ "%s"|format(big) }}', "more than 1,000,000 characters"),
    "printf-operator": (S + '{{ "%s" % (big,) }}', "more than 1,000,000 characters"),
    "format-method": (S + '{{ "{}".format(big) }}', "more than 1,000,000 characters"),
    "join-method": (S + '{{ "".join(big) }}', "more than 1,000,000 characters"),
    "wordwrap": (S + "{{ s|wordwrap(1, wrapstring=s) }}", "builds a string of"),
    "tilde": (S + '{{ big ~ "" }}', "more than 1,000,000 characters"),
    "output": (S + "{{ big }}", "more than 1,000,000 characters"),
    "translate": (S + "{{ s.translate({120: s}) }}", "builds a string of"),
    "sort": (S + "{{ big|sort|first }}", "more than 1,000,000 characters"),
    "tojson": (S + "{{ big|tojson }}", "more than 1,000,000 characters"),
    "upper": (S + "{{ big|upper }}", "more than 1,000,000 characters"),
    "pprint": (S + "{{ big|pprint }}", "more than 1,000,000 characters"),
    "unique": (S + "{{ big|unique|list }}", "more than 1,000,000 characters"),
    "repeat-in-macro": ('{% macro m(x) %}{{ x }}{% endmacro %}' + S + "{{ m(big) }}",
                        "more than 1,000,000 characters"),
}


@pytest.mark.parametrize("name", PROBES)
def test_one_call_cannot_build_an_unbounded_result(tmp_path, monkeypatch, name):
    from carddb import limits
    from pnp.draw.templates import TemplateError, Templates

    monkeypatch.setattr(limits, "TEMPLATE_SECONDS", 60)   # stopped by a size, not the clock
    source, message = PROBES[name]
    (tmp_path / "x-statix").mkdir()
    (tmp_path / "x-statix" / "probe.j2").write_text(source)
    templates = Templates([tmp_path])
    line = source.count("\n") + 1
    started = time.thread_time()     # the render's own CPU, not the machine's load
    with pytest.raises(TemplateError) as caught:
        templates.render("x-statix/probe.j2", {}, "card 'Probe'")
    seconds = time.thread_time() - started
    peak = 0
    if S in source:             # again, for the memory it takes (tracemalloc is slow)
        tracemalloc.start()
        try:
            with pytest.raises(TemplateError):
                templates.render("x-statix/probe.j2", {}, "card 'Probe'")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    text = str(caught.value)
    assert "\n" not in text and message in text, text
    assert text.startswith(f"x-statix/probe.j2:{line}:") or \
        text.split(": ")[0].endswith(f"probe.j2:{line}"), text
    assert text.endswith("(card 'Probe')"), text
    assert seconds < 5, seconds
    assert peak < 100 * 2**20, peak


def test_bounded_calls_still_do_their_work(tmp_path):
    from pnp.draw.templates import Templates

    (tmp_path / "x-statix").mkdir()
    (tmp_path / "x-statix" / "ok.j2").write_text(
        '{% set n = range(50000)|batch(1)|sum(start=[])|length %}'
        '- text: {box: [0, 0, 10, 5], text: {{ [n, [1, 2]|sum, [[1], [2]]|sum(start=[]),'
        ' ["a", "b"]|join("-"), range(3)|map("string")|join, "abc"|list|join(","),'
        ' "one two three"|wordwrap(5, wrapstring="/"), (lipsum(1, false, 5, 6)|wordcount > 4),'
        ' "%s-%s"|format(1, 2), "{}+{}".format(3, 4), "ab" ~ [1]] | join(" ") }}}\n')
    started = time.process_time()   # CPU, not the machine's load
    out = Templates([tmp_path]).render("x-statix/ok.j2", {}, "card 'Ok'")
    assert time.process_time() - started < 3        # linear: Python's sum takes minutes
    assert out[0]["text"]["text"] == "50000 3 [1, 2] a-b 012 a,b,c one/two/three True 1-2 3+4 ab[1]"


def test_a_hostile_template_call_stops_the_build_with_one_line(tmp_path):
    folder = project(tmp_path)
    (folder / "templates" / "x-statix" / "owner.j2").write_text(
        '{% set s = "x" * 100000 %}\n{{ ([s] * 100000)|join }}\n')
    run = pnp("build", "--game", "x-statix", "--only", "owners", "--out", "out", cwd=folder,
              watch=tmp_path, timeout=60, max_mb=800)
    one_line_error(run, 1, "templates/x-statix/owner.j2:2:", "more than 1,000,000 characters",
                   "(card 'Coach')")
    assert run.cpu < 20 and run.max_rss_mb < 400, (run.cpu, run.max_rss_mb)
    stayed_inside(run, folder, tmp_path / "cache")
