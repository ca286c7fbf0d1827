"""The export registry (issue 24 item 1): each `pnp export` target is one module of
pnp/exports/targets with its own options; a target registered from elsewhere (here the
test-only tests/pnp/export_target_plugin.py) is mounted by `pnp export` with its options;
the Tabletopia target writes one trimmed image per physical card front plus the back."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image, ImageChops

import carddb
import tests.pnp.export_target_plugin as export_target_plugin
from pnp.cli.export import target_options
from pnp.cli.main import main
from pnp.exports import targets
from pnp.exports.targets import Option, Target
from tests.harness import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("targets") / "proj"
    done = run_cli("pnp", "init", str(root))
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def plugin():
    targets.register(export_target_plugin.TARGET)
    yield export_target_plugin.TARGET
    targets.unregister("card-list")


def test_every_module_of_the_package_is_a_target_with_its_options():
    """The bundled targets and their options are there (a target added later adds to
    them: the exact list is not pinned)."""
    package = Path(targets.__file__).parent
    modules = {info.name.replace("_", "-") for info in pkgutil.iter_modules([str(package)])
               if info.name != "base" and not info.name.startswith("_")}
    found = targets.registry()
    assert {"cut", "pdf-single", "png", "tabletopia", "tts"} <= modules <= set(found)
    assert all(found[name].name == name for name in found)
    owners = {dest: names for dest, (_, names) in target_options().items()}
    bundled = {"machine": ["cut"], "corner_radius": ["cut"], "cut_bleed": ["cut"],
               "no_backs": ["pdf-single"], "dpi": ["png", "tabletopia"], "jpeg": ["tts"],
               "jobs": ["png", "tabletopia", "tts"], "base_url": ["tts"]}
    for dest, names in bundled.items():
        assert set(names) <= set(owners.get(dest, ())), (dest, owners.get(dest))


def test_two_targets_declaring_one_option_differently_are_refused():
    other = Target("other", "x", lambda job, dpi: None,
                   options=(Option("--dpi", "dpi", "other dpi", kind="int", default=150),))
    targets.register(other)
    try:
        with pytest.raises(ValueError, match="png and other declare --dpi differently|"
                                             "declare --dpi differently"):
            target_options()
    finally:
        targets.unregister("other")
    with pytest.raises(ValueError, match="kind"):
        Option("--x", "x", "x", kind="colour")


def test_a_registered_target_works_end_to_end_through_pnp_export(plugin, project, tmp_path):
    runner = CliRunner()
    listed = runner.invoke(main, ["export", "--help"])
    assert "card-list" in listed.output and "--upper" in listed.output
    out = tmp_path / "list"
    done = runner.invoke(main, ["export", "card-list", "--deck", "ships", "--upper",
                                "--out", str(out), "--project", str(project)])
    assert done.exit_code == 0, done.output
    assert f"card-list: wrote 1 files to {out}" in done.output
    lines = (out / "harbour" / "ships.txt").read_text().splitlines()
    assert "THE GULL" in lines and lines.count("IRON MAIDEN") == 2
    wrong = runner.invoke(main, ["export", "png", "--upper", "--project", str(project),
                                 "--out", str(tmp_path / "png")])
    assert wrong.exit_code == 2 and "--upper goes with the card-list target" in wrong.output
    assert not (tmp_path / "png").exists()
    targets.unregister("card-list")
    gone = runner.invoke(main, ["export", "card-list", "--project", str(project)])
    assert gone.exit_code == 2 and "card-list" in gone.output


def test_an_option_of_other_targets_is_a_usage_error_naming_them(project, cli, tmp_path):
    done = cli("pnp", "export", "tts", "--dpi", "150", "--out", str(tmp_path / "t"),
               cwd=project)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--dpi goes with the png and tabletopia targets" in done.stderr
    assert not (tmp_path / "t").exists()
    both = cli("pnp", "export", "--profile", "tgc", "--no-backs", cwd=project)
    assert both.returncode == 2 and "--no-backs goes with the pdf-single target" in both.stderr
    neither = cli("pnp", "export", cwd=project)
    assert neither.returncode == 2
    assert "give a TARGET (cut, pdf-single, png, tabletopia, tts) or --profile" in neither.stderr


def test_tabletopia_writes_each_physical_front_and_the_back_at_one_size(project, cli,
                                                                        tmp_path):
    out = tmp_path / "tt"
    done = cli("pnp", "export", "tabletopia", "--deck", "ships", "--dpi", "150",
               "--out", str(out), cwd=project)
    assert done.returncode == 0, done.stderr
    folder = out / "harbour" / "ships"
    names = sorted(p.name for p in folder.iterdir())
    assert "back.png" in names
    assert "iron-maiden--1.png" in names and "iron-maiden--2.png" in names
    assert f"tabletopia: wrote {len(names)} files" in done.stdout
    sizes = {Image.open(folder / n).size for n in names}
    assert sizes == {(round(63.5 / 25.4 * 150), round(88.9 / 25.4 * 150))}   # 375 x 525
    # the same pixels as the png export's face, its bleed cut off
    png = tmp_path / "png"
    assert cli("pnp", "export", "png", "--deck", "ships", "--dpi", "150", "--out", str(png),
               cwd=project).returncode == 0
    with_bleed = Image.open(png / "harbour" / "ships--the-gull--1.png").convert("RGB")
    bleed_px = carddb.load(project / "cards.yaml").print.bleed_mm / 25.4 * 150
    left, top = (with_bleed.size[0] - 375) // 2, (with_bleed.size[1] - 525) // 2
    assert abs(left - bleed_px) <= 1 and abs(top - bleed_px) <= 1
    trimmed = with_bleed.crop((left, top, left + 375, top + 525))
    mine = Image.open(folder / "the-gull--1.png").convert("RGB")
    assert ImageChops.difference(trimmed, mine).getbbox() is None
    assert (folder / "iron-maiden--1.png").read_bytes() == \
        (folder / "iron-maiden--2.png").read_bytes()
