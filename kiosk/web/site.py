"""What the result pages need to know about the kiosk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Site:
    """The kiosk's database, where phones reach the pages, and what the table allows them to list."""

    db: Path
    base_url: str  # where phones reach these pages
    viewer_url: str  # the static viewer that reads a result from the link itself
    table_name: str = ""
    show_recent: bool = False
