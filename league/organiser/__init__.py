"""What an organiser does to a league: seasons, schedules, the standings and playoffs, results and
rulings, the sign-in."""
