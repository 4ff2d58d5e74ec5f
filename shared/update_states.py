"""The states of a kiosk's update, in the words the kiosk writes them and the league's fleet shows
them: one vocabulary for both sides of the report (kiosk/updates/state.py, league/organiser/fleet.py)."""

UP_TO_DATE = "up to date"
OFFERED = "offered"
DOWNLOADING = "downloading"
DOWNLOADED = "downloaded"  # checked, waiting for a moment with no game open
INSTALLING = "installing"  # the slot not running is being written
INSTALLED = "installed"  # written: the next start tries it
TRYING = "trying"  # the new version runs once, until its health check
COMMITTED = "committed"
ROLLED_BACK = "rolled back"
REFUSED = "refused"
STATES = (UP_TO_DATE, OFFERED, DOWNLOADING, DOWNLOADED, INSTALLING, INSTALLED, TRYING, COMMITTED, ROLLED_BACK, REFUSED)
