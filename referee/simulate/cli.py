"""`referee simulate`: the balance lab's command line. Thin: parse, call the simulation
or the exact tables, print (rich tables, a progress bar on a terminal, or --json), and
write the PDF report. Heavy modules load inside the commands."""

from __future__ import annotations

import click

from referee.click_types import SEED, WholeNumber
from referee.command import Reply, global_options, json_option, run
from referee.errors import RefereeError
from referee.report_file import report_path, write_report
from referee.simulate.declared_cli import GamesGroup
from referee.words import counted


@click.group(cls=GamesGroup)
def simulate() -> None:
    """Balance lab: play many X-Statix games with automatic policies, or compute exact XO!
    matchup and objective tables; --report PATH.pdf writes charts.

    Any other GAME of the card database with rules declared as data (docs/CARDS.md):
    `referee simulate GAME --games N --policy random|greedy (or one a seat: greedy,random;
    --seating rotate to compare them fairly)
    --players N --jobs N --report FILE.pdf`, and sweeps: `--set KEY=V1,V2,...` (see
    `referee simulate GAME --help`)."""


def _policies(text: str, players: int) -> list[str]:
    from referee.simulate import policy_names
    from referee.simulate.policies import POLICIES

    names = policy_names(text, players, list(POLICIES))
    return names * players if len(names) == 1 else names


def _render(*renderables: object, width: int = 150) -> list[str]:
    """Rich renderables as plain text lines for the Reply (colour stays on the terminal)."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, highlight=False, color_system=None)
    for item in renderables:
        console.print(item)
    return buffer.getvalue().rstrip("\n").split("\n")


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def _ci(row: dict) -> str:
    return f"{row['low'] * 100:.1f}-{row['high'] * 100:.1f}%"


@simulate.command("x-statix")
@click.option("--games", type=WholeNumber(min=1), default=1000, show_default=True)
@click.option("--players", type=WholeNumber(2, 3), default=3, show_default=True)
@click.option("--seed", type=SEED, default=None, help="Seed (default: referee --seed, else random and shown).")
@click.option("--policy", "policy", default="greedy", show_default=True,
              help="cautious or greedy, or one per seat as dealt: cautious,greedy,greedy "
                   "(the first player is rolled, XS-1, so each policy plays every turn "
                   "position by chance; wins by policy are shown beside wins by seat).")
@click.option("--workers", type=WholeNumber(min=1), default=None,
              help="Processes (default: all cores). Results do not depend on it.")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="Write a PDF report with charts.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--strict", is_flag=True,
              help="Run every decision on a fresh copy of the state, as `referee xs` does "
                   "(slower; same results).")
@json_option
@click.pass_context
def x_statix(ctx: click.Context, games: int, players: int, seed: int | None, policy: str,
             workers: int | None, report: str | None, progress: bool | None, strict: bool,
             as_json: bool) -> None:
    """Play GAMES complete X-Statix games with automatic policies (same rule functions as
    the referee) and report win rates by seat, Owner and Team Name card (Wilson 95%
    intervals), game length, missions, hero survival and MT over time."""

    def answer() -> Reply:
        import random
        import time

        from referee.simulate import runner, stats

        names = _policies(policy, players)
        path = report_path(report)
        options = global_options(ctx)
        run_seed = seed if seed is not None else options.seed
        if run_seed is None:
            run_seed = random.SystemRandom().randrange(2**31)
        from referee.simulate.xs_sim import IllegalDecision

        started = time.perf_counter()
        try:
            tally = _with_progress(
                progress, games,
                lambda step: runner.simulate_xs(games, names, run_seed, workers, options.cards,
                                                strict=strict, progress=step))
        except IllegalDecision as error:  # a policy bug, reported like a refusal
            raise RefereeError(f"simulation stopped: a policy decision was refused: {error}",
                               None) from None
        elapsed = time.perf_counter() - started
        summary = stats.summarize(tally, players)
        meta = {"game": "x-statix", "games": games, "players": players, "seed": run_seed,
                "policies": names, "workers": workers or runner.default_workers(),
                "strict": strict,
                "seconds": round(elapsed, 3)}
        if path:
            from referee.simulate import report as pdf

            write_report(path, lambda: pdf.write_xs_report(path, summary, meta))
        lines = _xs_lines(summary, meta, path)
        return Reply(lines, {**meta, **summary, "report": path})

    run(as_json, answer)


def _with_progress(enabled: bool | None, total: int, work):
    from rich.console import Console

    console = Console(stderr=True)
    if enabled is None:
        enabled = console.is_terminal
    if not enabled:
        return work(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                  transient=False) as bar:
        task = bar.add_task("games", total=total)
        return work(lambda n: bar.advance(task, n))


def _xs_lines(summary: dict, meta: dict, path: str | None) -> list[str]:
    from rich.table import Table

    head = (f"X-Statix: {meta['games']} games, {meta['players']} players, policies "
            f"{','.join(meta['policies'])}, seed {meta['seed']} "
            f"({meta['seconds']:.1f} s on {counted(meta['workers'], 'worker')})")
    length = (f"game length: {summary['mean_turns']:.1f} turns on average "
              f"(sd {summary['sd_turns']:.1f}), {summary['mean_rounds']:.1f} rounds; "
              f"shared wins (ties, XS-13): {summary['shared_wins']}")
    wins = Table(title="Win rate (a shared first place counts as a win), Wilson 95% CI")
    for col in ("", "games", "wins", "win rate", "95% CI"):
        wins.add_column(col, justify="left" if not col else "right")
    for group, rows in (("seat", summary["seats"]), ("Owner", summary["owners"]),
                        ("Team Name", summary["teams"]), ("policy", summary["by_policy"])):
        for row in rows:
            wins.add_row(f"{group}: {row['label']}", str(row["n"]), str(row["wins"]),
                         _pct(row["rate"]), _ci(row))
    missions = Table(title="Missions (success rate among attempts; payoff when successful)")
    for col in ("mission", "played", "attempted", "success", "95% CI", "mean payoff", "MT/play"):
        missions.add_column(col, justify="left" if col == "mission" else "right")
    for row in sorted(summary["missions"], key=lambda r: -r["rate"]):
        missions.add_row(row["label"], str(row["played"]), str(row["attempted"]),
                         _pct(row["rate"]), _ci(row), f"{row['mean_payoff']:.1f}",
                         f"{row['mt_per_play']:.1f}")
    lines = [head, length, *_render(wins, missions), *_policy_seat_lines(summary["by_policy"]),
             "findings:"]
    lines += [f"  - {note}" for note in summary["findings"]]
    if path:
        lines.append(f"report: {path}")
    return lines


def _policy_seat_lines(rows: list[dict]) -> list[str]:
    """Each policy's wins at each turn position (the XS-1 roll seats them by chance)."""
    if len(rows) < 2:
        return []
    out = ["policies by turn position (the first player is rolled, XS-1), wins/seats:"]
    out += [f"  {r['label']}: " + ", ".join(f"{c['seat']}. {c['wins']}/{c['games']}"
                                             for c in r["by_seat"]) for r in rows]
    return out


@simulate.command("xo")
@click.option("--matchups", is_flag=True, help="Every roster attacker against every defender.")
@click.option("--objectives", is_flag=True, help="Best feat and thwart odds per objective.")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="Write a PDF report (heat maps, charts).")
@json_option
@click.pass_context
def xo(ctx: click.Context, matchups: bool, objectives: bool, report: str | None,
       as_json: bool) -> None:
    """Exact XO! odds (not sampled): P(hit), P(Stunned), P(KO) and expected damage of one
    attack for every matchup (XO-2..XO-5); each objective's best feat and thwart odds
    (XO-13, XO-14), flagged when > 90% or < 10%; a chapter flagged when it leans to one
    league. With neither flag: both."""

    def answer() -> Reply:
        from referee.command import load_cards
        from referee.simulate import xo_tables

        path = report_path(report)
        both = not matchups and not objectives
        db = load_cards(global_options(ctx).cards, "xo")
        table = xo_tables.matchups(db) if (matchups or both) else []
        objs = xo_tables.objectives(db) if (objectives or both) else []
        if path:
            from referee.simulate import report as pdf

            write_report(path, lambda: pdf.write_xo_report(path, table, objs))
        lines = []
        if matchups or both:
            lines += _matchup_lines(table)
        if objectives or both:
            lines += _objective_lines(objs)
        notes = xo_tables.findings(table, objs)
        lines.append("findings:")
        lines += [f"  - {note}" for note in notes]
        if path:
            lines.append(f"report: {path}")
        data: dict = {"game": "xo", "report": path, "findings": notes}
        if matchups or both:
            data["matchups"] = [m.as_dict() for m in table]
        if objectives or both:
            data["objectives"] = [o.as_dict() for o in objs]
            data["chapters"] = [c.as_dict() for c in xo_tables.chapters(objs)]
        return Reply(lines, data)

    run(as_json, answer)


def _matchup_lines(table: list) -> list[str]:
    from rich.table import Table

    out = Table(title="One attack, exact odds (XO-2..XO-6): attacker vs defender, no cards played")
    for col in ("attacker", "defender", "dice", "health", "P(hit)", "P(Stunned)", "P(KO)",
                "E\\[damage]", "P(counter)"):
        out.add_column(col, justify="left" if col in ("attacker", "defender") else "right")
    for m in table:
        out.add_row(m.attacker, m.defender, f"{m.attack_dice}v{m.defense_dice}", str(m.health),
                    _pct(float(m.hit)), _pct(float(m.stunned)), _pct(float(m.ko)),
                    f"{float(m.expected_damage):.2f}", _pct(float(m.counterattack)))
    if not table:
        return ["no matchups: the card database has no characters in one league"]
    return _render(out)


def _objective_lines(objs: list) -> list[str]:
    from rich.table import Table

    out = Table(title="Objectives: best feat (>= FCV, XO-13) and best thwart (>= TCV, XO-14)")
    for col in ("ch", "league", "objective", "needs", "FCV", "best feat", "P(feat)", "TCV",
                "best thwart", "P(thwart)", "P(won)", "flags"):
        out.add_column(col, justify="right" if col.startswith(("P(", "FCV", "TCV", "ch")) else "left")
    for o in objs:
        out.add_row(str(o.chapter), o.league, o.name, o.requires, str(o.fcv), o.feat_by or "-",
                    _pct(float(o.feat)), str(o.tcv), o.thwart_by or "-", _pct(float(o.thwart)),
                    _pct(float(o.completed)), "; ".join(o.flags))
    flagged = [o for o in objs if o.flags]
    lines = _render(out)
    lines.append(f"flagged: {len(flagged)} of {len(objs)} objectives")
    return lines
