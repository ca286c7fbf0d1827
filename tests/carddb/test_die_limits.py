"""A die's faces are bounded like the database's other limits (issue 31, item 6): a
10,000-face die was accepted and took over a minute to label. At most
limits.MAX_DIE_FACES faces, and at most limits.MAX_DIE_LABELS labels for one die (faces x
per_player x sets), refused at the die's `file:line:col` in one line, by `pnp validate`
and by the referee, which reads only a validated database."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import carddb
from carddb import limits


def project(tmp_path: Path, faces: int, per_player: int) -> Path:
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    cards = folder / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    text = re.sub(r"faces: \[[^\]]*\]", "faces: [" + ", ".join(f"f{i}" for i in range(faces))
                  + "]", text, count=1)
    text = text.replace("outcome: wind - wave", "outcome: f0 - f1")  # its roll's faces
    cards.write_text(text.replace("per_player: 3", f"per_player: {per_player}", 1),
                     encoding="utf-8")
    return cards


def problems(cards: Path) -> list[str]:
    with pytest.raises(carddb.DatabaseError) as refused:
        carddb.load(cards)
    return [str(p) for p in refused.value.problems]


def test_a_ten_thousand_face_die_is_refused_where_its_faces_are(tmp_path):
    found = problems(project(tmp_path, 10_000, 1))
    assert len(found) == 1, found
    assert re.match(r".*cards\.yaml:\d+:\d+: games\.harbour\.dice\.storm\.faces: a die of "
                    r"10,000 faces; a die has at most 120\Z", found[0]), found


def test_the_labels_one_die_prints_are_bounded(tmp_path):
    found = problems(project(tmp_path, limits.MAX_DIE_FACES, 20))
    assert len(found) == 1 and "games.harbour.dice.storm: 120 faces x 20 per player = 2,400 " \
        "labels to print; at most 2,000" in found[0], found


def test_dice_inside_the_limits_load(tmp_path):
    db = carddb.load(project(tmp_path, limits.MAX_DIE_FACES, 16))  # 1,920 labels
    assert len(db.games["harbour"].extras["dice"]["storm"]["faces"]) == limits.MAX_DIE_FACES


def test_the_referee_refuses_such_a_die_in_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from referee.cli import main

    cards = project(tmp_path, 10_000, 1)
    monkeypatch.chdir(cards.parent)
    result = CliRunner(env={"REFEREE_SESSION": None, "REFEREE_CARDS": None}).invoke(
        main, ["odds", "2 storm"])
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit | None)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "a die has at most 120" in lines[0], result.stderr
