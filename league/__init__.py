"""The league server: leagues, seasons, teams, venues, the schedule and the standings.

Imports the engine and the kiosk's pure pieces; neither of them imports this package.
"""
