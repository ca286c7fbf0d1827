"""Stage 1, layout geometry: where cards, guides, marks and tiles go on a sheet. Pure
arithmetic in points, no drawing (nothing here imports ReportLab)."""
