"""``python -m kiosk`` is the ``clabber`` command."""

from kiosk.cli import main

main()
