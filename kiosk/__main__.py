"""``python -m kiosk`` is the ``clabber`` command."""

from shared.cli import main

main()
