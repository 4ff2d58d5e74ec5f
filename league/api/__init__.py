"""The kiosk API: enrolment, keys, pushes of kiosks' games, tonight's meetings and the rulings."""
