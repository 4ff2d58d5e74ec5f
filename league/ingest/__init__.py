"""Kiosk games coming into the league: enrolment and keys, pushes of their events (each batch checked
whole, each game re-folded by the kiosk's own fold), tonight's meetings and the rulings sent back.
How a game that comes in counts is the organiser's (league/organiser/counting.py)."""
