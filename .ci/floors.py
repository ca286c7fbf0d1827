"""Print `name==floor` for every runtime and test dependency pyproject.toml declares with
`name>=floor`: the constraints .ci/floors installs the project at. A dependency without
a `>=` floor is refused (exit 1): what is declared is what is tested."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9][^,;\s]*)\s*(?:,[^;]*)?(?:;.*)?$")


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        found = FLOOR.match(requirement)
        if found is None:
            raise ValueError(f"{pyproject.name}: {requirement!r} declares no `>=` floor")
        pins.append(f"{found.group(1)}=={found.group(2)}")
    return pins


def main() -> int:
    try:
        print("\n".join(floors(Path(__file__).resolve().parent.parent / "pyproject.toml")))
    except ValueError as error:
        print(f"floors: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
