"""The kiosk API over HTTP (``app.py``): requests read, answers written; the work is league/ingest/'s."""
