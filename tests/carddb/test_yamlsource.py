"""The fast (libyaml) parser must locate every value exactly where the pure-Python one does:
validation messages point at lines and columns."""

from pathlib import Path

import yaml

from carddb import yamlsource

CARDS = Path(__file__).resolve().parents[2] / "cards.yaml"


def _positions(value, path="") -> dict:
    found = {}
    if isinstance(value, yamlsource.LocatedDict):
        found[path] = (value.pos, dict(value.value_pos), dict(value.key_pos))
        for key, item in value.items():
            found.update(_positions(item, f"{path}/{key}"))
    elif isinstance(value, yamlsource.LocatedList):
        found[path] = (value.pos, list(value.item_pos))
        for index, item in enumerate(value):
            found.update(_positions(item, f"{path}[{index}]"))
    return found


def test_bundled_cards_load_with_the_same_values_and_positions_as_the_pure_python_parser(monkeypatch):
    raw = CARDS.read_bytes()
    fast, _ = yamlsource.load_yaml(raw)

    class PureLoader(yaml.SafeLoader):
        def __init__(self, stream):
            super().__init__(stream)
            self.duplicates = []

    PureLoader.add_constructor("tag:yaml.org,2002:map", yamlsource._construct_mapping)
    PureLoader.add_constructor("tag:yaml.org,2002:seq", yamlsource._construct_sequence)
    monkeypatch.setattr(yamlsource, "_Loader", PureLoader)
    pure, _ = yamlsource.load_yaml(raw)

    assert fast == pure
    assert _positions(fast) == _positions(pure)


def test_a_syntax_error_is_located():
    raw = b"games:\n  xo: {title: [unclosed\n"
    try:
        yamlsource.load_yaml(raw)
    except yamlsource.YamlProblem as problem:
        assert problem.pos.line >= 2
        assert problem.message.startswith("YAML syntax:")
    else:
        raise AssertionError("malformed YAML was accepted")
