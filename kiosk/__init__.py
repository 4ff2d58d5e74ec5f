"""The Clabber table kiosk: the controller, store, screens and commands around the engine."""
