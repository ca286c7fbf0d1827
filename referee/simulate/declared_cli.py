"""`referee simulate GAME` for a game with rules declared as data (carddb.gamerules):
the simulate group answers any name that is not one of its own commands with a command
for that game of the card database (the game found and checked only when it runs). Thin:
parse, call referee.simulate.declared, print (or --json)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click

from referee.click_types import SEED, WholeNumber
from referee.command import Reply, global_options, json_option, run
from referee.errors import UsageError
from referee.words import counted


class GamesGroup(click.Group):
    """A group whose unknown command names are games: `referee simulate bramble`."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        return found if found is not None else declared_command(cmd_name)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[OPTIONS] GAME|COMMAND [ARGS]...")


def declared_command(game_id: str) -> click.Command:
    @click.command(game_id)
    @click.option("--games", type=WholeNumber(min=1), default=1000, show_default=True)
    @click.option("--players", type=WholeNumber(min=1), default=None,
                  help="Players (default: the game's least).")
    @click.option("--seed", type=SEED, default=None,
                  help="Seed (default: referee --seed, else random and shown).")
    @click.option("--policy", default="random", show_default=True,
                  help="random: random legal answers; greedy: the answer that leaves the "
                  "player's score highest against the best other's; or one a seat in turn "
                  "order: greedy,random.")
    @click.option("--seating", type=click.Choice(SEATINGS), default="fixed", show_default=True,
                  help="With one policy a seat: fixed (as given, in turn order) or rotate "
                  "(game i shifts the policies i seats, so each policy plays every seat "
                  "equally: compare the policies' wins without the seats' advantage).")
    @click.option("--jobs", type=WholeNumber(min=1), default=None,
                  help="Processes (default: all cores). Results do not depend on it.")
    @click.option("--set", "sets", multiple=True, metavar="KEY=V1,V2,...",
                  help="Sweep: a variant for each value (repeatable: every combination). "
                       "Keys: hand_limit, dice.DIE.faces (faces spaced), tokens.KIND.start, "
                       "end.rounds, end.token.KIND, end.pool.KIND (a test: '>= 25'), "
                       "end.finish (now or round: every end condition).")
    @click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
                  help="Also write a PDF report with charts (a sweep: one page comparing "
                       "the variants).")
    @json_option
    @click.pass_context
    def command(ctx: click.Context, games: int, players: int | None, seed: int | None,
                policy: str, seating: str, jobs: int | None, sets: tuple[str, ...],
                report: str | None, as_json: bool) -> None:
        """Play GAMES whole games of a game with rules declared as data, through the
        referee's own moves, and report wins by seat (the first player's advantage, Wilson
        95%), wins by policy (over every seat it played, Wilson 95%; --seating rotate to
        compare policies fairly), game length, score spread, the end conditions, each named
        roll's outcomes and the cards in the winners' play zones against the losers';
        --report FILE.pdf: the same as charts, each named roll observed against its exact
        odds."""
        run(as_json, lambda: _answer(ctx, game_id, Asked(games, players, seed, policy, jobs,
                                                         sets, report, seating)))

    return command


@dataclass(frozen=True)
class Asked:
    """The command's options, as given."""

    games: int
    players: int | None
    seed: int | None
    policy: str
    jobs: int | None
    sets: tuple[str, ...]
    report: str | None
    seating: str = "fixed"


SEATINGS = ("fixed", "rotate")


def _answer(ctx: click.Context, game_id: str, asked: Asked) -> Reply:
    import random
    import time

    from referee.command import load_cards
    from referee.report_file import report_path
    from referee.simulate import declared
    from referee.table.kit import TableGame

    path = report_path(asked.report)
    options = global_options(ctx)
    db = load_cards(options.cards, game_id)
    game = TableGame.from_db(db, game_id)
    if not game.rules.declared:
        raise UsageError(f"{game.title} declares no rules as data (docs/CARDS.md, \"Rules as "
                         "data\"): nothing to simulate")
    n = asked.players if asked.players is not None else game.min_players
    if not game.min_players <= n <= game.max_players:
        raise UsageError(f"--players {n}: {game.title} is for {game.min_players} to "
                         f"{game.max_players} players")
    policy = declared.parse_policies(asked.policy, n)
    parsed = [declared.parse_set(text) for text in asked.sets]
    combos = declared.sweep(db, game_id, parsed) if parsed else [[]]
    variants = [declared.variant(db, game_id, c) if c else game for c in combos]
    run_seed = asked.seed if asked.seed is not None else options.seed
    if run_seed is None:
        run_seed = random.SystemRandom().randrange(2**31)
    workers = asked.jobs or declared.default_jobs()
    started = time.perf_counter()
    rotate = asked.seating == "rotate"
    summaries = declared.simulate(variants, n, policy, asked.games, run_seed, workers, rotate)
    meta = {"game": game_id, "title": game.title, "games": asked.games, "players": n,
            "policy": policy, "seating": asked.seating, "seed": run_seed, "jobs": workers,
            "seconds": round(time.perf_counter() - started, 3), "report": path}
    seated = ", seats rotated each game" if rotate else ""
    head = (f"{game.title}: {counted(asked.games, 'game')} of {n} players, policy {policy}"
            f"{seated}, seed {run_seed} ({meta['seconds']:.1f} s on {counted(workers, 'job')})")
    labels = [", ".join(f"{k}={v}" for k, v in c) for c in combos]
    if path:
        _write_pdf(path, labels if parsed else None, summaries, meta)
    tail = [f"report: {path}"] if path else []
    if parsed:
        rows = [{"set": dict(c), **s} for c, s in zip(combos, summaries, strict=True)]
        return Reply([head, *_sweep_lines(labels, summaries), *tail], {**meta, "variants": rows})
    return Reply([head, *_lines(summaries[0]), *tail], {**meta, **summaries[0]})


def _write_pdf(path: str, labels: list[str] | None, summaries: list[dict[str, Any]],
               meta: dict[str, Any]) -> None:
    """The PDF: one declared game's pages, or a sweep's page of variants."""
    from referee.report_file import write_report
    from referee.simulate import report

    if labels is None:
        write_report(path, lambda: report.write_declared_report(path, summaries[0], meta))
    else:
        write_report(path, lambda: report.write_sweep_report(path, labels, summaries, meta))


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def _lines(s: dict[str, Any]) -> list[str]:
    from referee.report.text import p_text

    first = s["first_player"]
    out = ["wins by seat in turn order (a shared first place counts for each; Wilson 95%):"]
    out += [f"  seat {r['seat']}: {r['wins']} wins, {_pct(r['rate'])} "
            f"({_pct(r['low'])}-{_pct(r['high'])})" for r in s["seats"]]
    out.append(f"first player's advantage: {first['advantage'] * 100:+.1f} points over a fair "
               f"{_pct(first['fair'])} (95% {_pct(first['low'])}-{_pct(first['high'])}); "
               f"shared wins {s['shared_wins']}")
    out += _policy_lines(s["by_policy"])
    t, r, sp = s["turns"], s["rounds"], s["score_spread"]
    out.append(f"game length: {t['mean']:.1f} turns (sd {t['sd']:.1f}, {t['min']}-{t['max']}), "
               f"{r['mean']:.1f} rounds ({r['min']}-{r['max']})")
    out.append(f"score: the winner {sp['winner_mean']:.1f} on average; spread (best less "
               f"lowest) {sp['mean']:.1f} (sd {sp['sd']:.1f})")
    out.append("ended by:")
    out += [f"  {k}: {v['count']} ({_pct(v['rate'])})" for k, v in s["ends"].items()]
    for name, roll in s["rolls"].items():
        parts = ", ".join(f"{k}: {_pct(v['rate'])}" for k, v in roll["outcomes"].items())
        fit = roll["fit"]
        against = (f"; against the exact odds, {fit['test']} p = {p_text(fit['p_value'])}"
                   if fit["dice"] is not None else "")
        out.append(f"{name} roll ({roll['rolls']} rolled): {parts}{against}")
    if s["cards"]:
        out.append("cards in play, per winner against per loser (most winning first):")
        out += [f"  {c['card']}: {c['winner']:.2f} against {c['loser']:.2f}" for c in s["cards"]]
    return out


def _policy_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Wins by policy (when the seats play more than one), with each one's wins by seat."""
    if len(rows) < 2:
        return []
    out = ["wins by policy, over every seat it played (Wilson 95%):"]
    for r in rows:
        seats = ", ".join(f"seat {c['seat']} {c['wins']}/{c['games']}" for c in r["by_seat"]
                          if c["games"])
        out.append(f"  {r['policy']}: {r['wins']} wins of {r['seats_played']} seats, "
                   f"{_pct(r['rate'])} ({_pct(r['low'])}-{_pct(r['high'])}); {seats}")
    return out


def _sweep_lines(labels: list[str], summaries: list[dict[str, Any]]) -> list[str]:
    import io

    from rich.console import Console
    from rich.table import Table

    table = Table(title="One row per variant")
    for col in ("variant", "1st seat wins", "95% CI", "turns", "rounds", "spread",
                "most common end"):
        table.add_column(col, justify="left" if col in ("variant", "most common end") else "right")
    for label, s in zip(labels, summaries, strict=True):
        first = s["first_player"]
        end, data = max(s["ends"].items(), key=lambda kv: kv[1]["count"])
        table.add_row(label, _pct(first["rate"]), f"{_pct(first['low'])}-{_pct(first['high'])}",
                      f"{s['turns']['mean']:.1f}", f"{s['rounds']['mean']:.1f}",
                      f"{s['score_spread']['mean']:.1f}", f"{end} {_pct(data['rate'])}")
    buffer = io.StringIO()
    Console(file=buffer, width=150, highlight=False, color_system=None).print(table)
    return buffer.getvalue().rstrip("\n").split("\n")
