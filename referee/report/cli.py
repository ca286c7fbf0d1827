"""`referee report SESSION...` (mounted lazily by referee/cli.py)."""

from __future__ import annotations

import json

import click


@click.command("report")
@click.argument("sessions", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--report", "pdf", type=click.Path(dir_okay=False),
              help="Also write a PDF report (wins by seat, tokens over each game, each named "
                   "roll against its exact odds) to this file.")
def report(sessions: tuple[str, ...], as_json: bool, pdf: str | None) -> None:
    """What real games of one game say: winners by seat, game length, each player's
    tokens (MT/FT in X-Statix) over the game, each named roll's outcomes against the exact
    odds (a p-value: chi-square, or the exact test for small counts) and the cards the
    winners played. Reads each session read-only, and only what the table saw: never a
    hand. Sessions of different games are refused."""
    from referee.command import guard
    from referee.report.read import read_session
    from referee.report.summary import summarise

    with guard(as_json):
        from referee.report_file import report_path, write_report

        pdf = report_path(pdf)
        summary = summarise([read_session(path) for path in sessions])
        if pdf:
            from referee.report.pdf import write_report as write_pdf

            target = pdf
            write_report(target, lambda: write_pdf(target, summary))
    if as_json:
        click.echo(json.dumps(summary, indent=1))
        return
    from referee.report.text import lines

    click.echo("\n".join(lines(summary)))
    if pdf:
        click.echo(f"report: {pdf}")
