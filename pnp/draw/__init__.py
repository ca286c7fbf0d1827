"""Stage 2, drawing: one card, mat, die label or token from its Jinja template onto a
ReportLab canvas (templates in a sandbox, markup, text fitting, icons, fonts and glyph
fallbacks, the checks of what was drawn)."""
