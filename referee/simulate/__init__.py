"""The balance lab: automatic X-Statix games played through the referee's own rule
functions (`referee.xs`), exact XO! matchup and objective tables (`referee.odds`,
`referee.xo.rules`), statistics with confidence intervals and PDF reports."""
