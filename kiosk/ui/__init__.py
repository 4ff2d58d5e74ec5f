"""The touchscreen: Kivy screens over the table controller. Only ``clabber kiosk`` imports this."""
