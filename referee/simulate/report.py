"""PDF reports of the balance lab, built from the pages every report shares
(referee/pages.py): X-Statix (bar charts with 95% error bars, MT over time), XO! (heat maps
of the matchups, the objectives' odds), and a game with rules declared as data (wins by
seat, game length, score spread, end conditions, each named roll against its exact odds,
the cards in the winners' play areas; a sweep: one row per variant)."""

from __future__ import annotations

from typing import Any

from reportlab.platypus import KeepTogether, PageBreak, Paragraph, Spacer

from referee import pages
from referee.pages import STYLES, bar_chart, heat_map, line_chart, table
from referee.pages import ci as _ci
from referee.pages import doc as _doc
from referee.pages import esc as _esc
from referee.pages import para as _para
from referee.pages import pct as _pct
from referee.simulate import xo_tables


# ── X-Statix ──────────────────────────────────────────────────────────────────
def write_xs_report(path: str, summary: dict[str, Any], meta: dict[str, Any]) -> None:
    players = summary["players"]
    fair = 1 / players
    story: list[Any] = [
        _para("X-Statix balance report", "Title"),
        _para(f"{summary['games']} simulated games, {players} players, policies "
              f"{', '.join(meta['policies'])} (seats as dealt), seed {meta['seed']}. Games are "
              "played by the referee's own X-Statix rule functions; intervals are Wilson 95% "
              "confidence intervals; a shared first place counts as a win."),
        _para(f"Average game length: {summary['mean_turns']:.1f} turns "
              f"(sd {summary['sd_turns']:.1f}), {summary['mean_rounds']:.1f} rounds."),
        _para("Summary: the most unbalanced findings", "Heading2"),
    ]
    story += [_para(f"• {note}") for note in summary["findings"]]
    rows = []
    for group, items in (("seat", summary["seats"]), ("Owner", summary["owners"]),
                         ("Team Name", summary["teams"]), ("policy", summary["by_policy"])):
        rows += [[f"{group}: {r['label']}", str(r["n"]), str(r["wins"]), _pct(r["rate"]),
                  _ci(r)] for r in items]
    story += [Spacer(1, 6), _para("Win rates", "Heading2"),
              table(["", "games", "wins", "win rate", "95% CI"], rows,
                    [190, 50, 50, 60, 80])]
    if len(summary["by_policy"]) > 1:
        story += [Spacer(1, 6), _policy_seats(summary["by_policy"], players)]
    story.append(PageBreak())
    story += pages.seat_wins([{**r, "games": r["n"]} for r in summary["seats"]],
                             "Win rate by seat (turn order)", height=180)
    charts = [("Win rate by Owner card", summary["owners"]),
              ("Win rate by Team Name card", summary["teams"])]
    if len(summary["by_policy"]) > 1:
        charts.append(("Win rate by policy", summary["by_policy"]))
    for title, items in charts:
        story.append(bar_chart(title, [r["label"] for r in items], [r["rate"] for r in items],
                               [r["low"] for r in items], [r["high"] for r in items],
                               reference=fair, reference_label=f"fair {fair:.0%}",
                               height=190 if len(charts) == 2 else 165))
        story.append(Spacer(1, 8))
    curves = {f"{_ordinal(int(p))} player": [(r["turn"], r["mean_mt"]) for r in rows_
                                             if r["games"] >= max(1, summary["games"] // 20)]
              for p, rows_ in summary["mt_curves"].items()}
    story.append(PageBreak())
    story.append(line_chart("MT over time (mean MT after each of the player's own turns)",
                            curves, "the player's own turn", "mean MT"))
    story.append(_para("Each point averages the games still running at that turn (turns reached "
                       "by fewer than 5% of the games are left out).", "Italic"))
    missions = sorted(summary["missions"], key=lambda r: r["label"])
    story.append(Spacer(1, 8))
    story.append(bar_chart("Mission success rate by mission card",
                           [r["label"] for r in missions], [r["rate"] for r in missions],
                           [r["low"] for r in missions], [r["high"] for r in missions],
                           height=240))
    story.append(PageBreak())
    story.append(bar_chart("Average payoff per mission card played (MT)",
                           [r["label"] for r in missions], [r["mt_per_play"] for r in missions],
                           percent=False, height=220))
    story.append(KeepTogether([_para("Missions", "Heading2"), table(
        ["mission", "played", "attempted", "success", "95% CI", "payoff if won", "MT per play"],
        [[r["label"], str(r["played"]), str(r["attempted"]), _pct(r["rate"]), _ci(r),
          f"{r['mean_payoff']:.1f}", f"{r['mt_per_play']:.1f}"] for r in missions],
        [120, 45, 55, 50, 75, 70, 65])]))
    heroes = sorted(summary["heroes"], key=lambda r: r["label"])
    story.append(PageBreak())
    story.append(bar_chart("Hero survival rate on missions", [r["label"] for r in heroes],
                           [r["rate"] for r in heroes], [r["low"] for r in heroes],
                           [r["high"] for r in heroes], height=240))
    story.append(KeepTogether([_para("Heroes", "Heading2"), table(
        ["hero", "missions", "survived", "survival", "95% CI", "recruited", "in play at end"],
        [[r["label"], str(r["missions"]), str(r["survived"]), _pct(r["rate"]), _ci(r),
          str(r["recruited"]), str(r["alive_at_end"])] for r in heroes],
        [110, 50, 50, 50, 75, 55, 70])]))
    _doc(path, "X-Statix balance report").build(story)


def _policy_seats(rows: list[dict[str, Any]], players: int) -> Any:
    """Each policy's wins (of its seats) at each turn position: the XS-1 roll seats them."""
    grid = table(["policy", *(f"{_ordinal(p)} player" for p in range(1, players + 1))],
                 [[r["label"], *(f"{c['wins']}/{c['games']}" for c in r["by_seat"])]
                  for r in rows])
    return KeepTogether([_para("Policies by turn position (wins/seats; the first player is "
                               "rolled, XS-1, so each policy plays each position by chance)",
                               "Heading3"), grid, Spacer(1, 8)])


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ── XO! ───────────────────────────────────────────────────────────────────────
def write_xo_report(path: str, matchups: list, objectives: list) -> None:
    story: list[Any] = [
        _para("XO! balance report", "Title"),
        _para("Exact odds (not sampled) from the referee's own dice distributions and combat "
              "rules: one attack of each roster character against each character of the other "
              "league, untagged and with no cards played (XO-2..XO-6); each objective's best "
              "feat (XO-13) and best thwart (XO-14)."),
        _para("Summary: the most unbalanced findings", "Heading2"),
    ]
    story += [_para(f"• {note}") for note in xo_tables.findings(matchups, objectives)]
    for league, other in (("heroes", "villains"), ("villains", "heroes")):
        subset = [m for m in matchups if m.league == league]
        if not subset:
            continue
        rows = list(dict.fromkeys(m.attacker for m in subset))
        cols = list(dict.fromkeys(m.defender for m in subset))
        if league == "villains" or len(rows) > 6:
            story.append(PageBreak())
        for metric, label in (("hit", "P(hit)"), ("ko", "P(KO)")):
            values = {(m.attacker, m.defender): float(getattr(m, metric)) for m in subset}
            story.append(heat_map(f"{label}: {league} attacking {other}", rows, cols, values))
            story.append(Spacer(1, 10))
    if matchups:
        story.append(PageBreak())
        story.append(_para("Matchups", "Heading2"))
        story.append(table(
            ["attacker", "defender", "dice", "health", "P(hit)", "P(Stunned)", "P(KO)",
             "E[damage]", "P(counter)"],
            [[m.attacker, m.defender, f"{m.attack_dice}v{m.defense_dice}", str(m.health),
              _pct(float(m.hit)), _pct(float(m.stunned)), _pct(float(m.ko)),
              f"{float(m.expected_damage):.2f}", _pct(float(m.counterattack))] for m in matchups],
            [90, 90, 35, 35, 45, 55, 45, 50, 50], text_cols=2))
    if objectives:
        story.append(PageBreak())
        labels = [f"{o.chapter}{o.league[0].upper()}" for o in objectives]
        story.append(bar_chart("Objectives: best character's feat probability", labels,
                               [float(o.feat) for o in objectives],
                               lines=[(0.9, "90%"), (0.1, "10%")], height=200))
        story.append(bar_chart("Objectives: best opponent's thwart probability", labels,
                               [float(o.thwart) for o in objectives],
                               lines=[(0.9, "90%"), (0.1, "10%")], height=200))
        story.append(_para("Objectives", "Heading2"))
        small = STYLES["BodyText"].clone("cell", fontSize=7, leading=8)
        story.append(table(
            ["ch", "objective (needs)", "FCV", "best feat", "P(feat)", "TCV", "best thwart",
             "P(thwart)", "P(won)", "flags"],
            [[f"{o.chapter}{o.league[0].upper()}",
              Paragraph(f"{_esc(o.name)}<br/><i>{_esc(o.requires)}</i>", small), str(o.fcv),
              Paragraph(_esc(o.feat_by or "-"), small), _pct(float(o.feat)), str(o.tcv),
              Paragraph(_esc(o.thwart_by or "-"), small), _pct(float(o.thwart)),
              _pct(float(o.completed)), Paragraph(_esc("; ".join(o.flags)), small)]
             for o in objectives],
            [20, 118, 24, 74, 38, 24, 74, 42, 36, 62], text_cols=2))
        story.append(_para("P(won): the feat succeeds and the best thwart fails, for one "
                           "attempt (XO-13, XO-14), without cards or the thwart bonus.", "Italic"))
    _doc(path, "XO! balance report").build(story)


# ── a game with rules declared as data ────────────────────────────────────────
def _counts(figure: dict[str, Any]) -> dict[int, int]:
    return {int(v): n for v, n in figure.get("counts", {}).items()}


def _about(meta: dict[str, Any]) -> str:
    seated = ("rotated one seat each game" if meta.get("seating") == "rotate"
              else "by seat in turn order when several")
    return (f"{meta['games']} simulated games of {meta['players']} players, policy "
            f"{meta['policy']} ({seated}), seed {meta['seed']}. Games "
            "are played through the referee's own moves; intervals are Wilson 95% confidence "
            "intervals; a shared first place counts as a win for each.")


def declared_story(summary: dict[str, Any], meta: dict[str, Any]) -> list[Any]:
    """Every page of one declared game's simulation (the figures of `simulate GAME --json`)."""
    first = summary["first_player"]
    story: list[Any] = [
        _para(f"{meta['title']} balance report", "Title"), _para(_about(meta)),
        _para(f"First player's advantage: {first['advantage'] * 100:+.1f} points over a fair "
              f"{_pct(first['fair'])} (95% {_ci(first)}); shared wins {summary['shared_wins']}."),
        _para(f"Average game length: {summary['turns']['mean']:.1f} turns, "
              f"{summary['rounds']['mean']:.1f} rounds."), Spacer(1, 6)]
    story += pages.seat_wins([{**r, "label": f"seat {r['seat']}", "games": summary["games"]}
                              for r in summary["seats"]])
    if len(summary.get("by_policy", [])) > 1:
        story += pages.policies(summary["by_policy"], summary["players"],
                                meta.get("seating", "fixed"))
    story += pages.ends(summary["ends"])
    story += pages.length(_counts(summary["turns"]), _counts(summary["rounds"]))
    story += pages.spread(_counts(summary["score_spread"]), summary["score_spread"]["winner_mean"])
    lead = [_para("Named rolls: observed against the exact odds", "Heading2")]
    for i, (name, fit) in enumerate(summary["rolls"].items()):
        story += pages.roll(name, fit["fit"], lead if i == 0 else ())
    story += pages.cards(summary["cards"], [_para("Cards in the winners' play areas", "Heading2")])
    return story


def write_declared_report(path: str, summary: dict[str, Any], meta: dict[str, Any]) -> None:
    _doc(path, f"{meta['title']} balance report").build(declared_story(summary, meta))


def write_sweep_report(path: str, labels: list[str], summaries: list[dict[str, Any]],
                       meta: dict[str, Any]) -> None:
    """A sweep: one page comparing the variants (a row each)."""
    story: list[Any] = [_para(f"{meta['title']} sweep report", "Title"), _para(_about(meta))]
    story += pages.variants(labels, summaries)
    _doc(path, f"{meta['title']} sweep report").build(story)
