#!/usr/bin/env bash
# How pnp-fogra39.icc (pnp's default CMYK output profile, issue 22 item 2) was made. Run at
# development time only: pnp ships the result, nobody needs ArgyllCMS to use pnp.
#
#   apt-get install argyll icc-profiles-free      # Debian 12: argyll 2.3.1, icc-profiles-free 2.0.1
#   pnp/exports/icc/make_profile.sh
#
# Input: FOGRA39L.ti3 from Debian's icc-profiles-free, Fogra's characterisation data of
# offset printing on coated paper (ISO 12647-2:2004/Amd 1, paper type 1/2) as Kai-Uwe
# Behrmann's zlib-licensed measurement file (LICENSE.txt). colprof (ArgyllCMS) fits a CMYK
# output profile to those 1617 measured patches: medium quality (-qm) keeps it ~250 KB,
# ramp black generation (-kr, Argyll's default, written out), total ink 300 % in its
# separation tables (pnp then caps each shop's limit itself, pnp/exports/cmyk.py), the
# measurement data not embedded (-nc). A profile ArgyllCMS makes is its user's data, not
# covered by ArgyllCMS's AGPL.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ti3="${FOGRA39_TI3:-$(dpkg -L icc-profiles-free | grep -i '/FOGRA39L\.ti3$')}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$ti3" "$work/pnp-fogra39.ti3"
colprof -v -qm -kr -l300 -nc \
  -D "pnp FOGRA39 (coated offset, ArgyllCMS from FOGRA39L.ti3)" \
  -C "Made by pnp-referee from FOGRA39L.ti3 (Kai-Uwe Behrmann, zlib licence); see LICENSE.txt" \
  "$work/pnp-fogra39"
cp "$work/pnp-fogra39.icc" "$here/pnp-fogra39.icc"
ls -l "$here/pnp-fogra39.icc"
