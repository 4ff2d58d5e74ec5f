"""The league's results as they are read: standings, the order they were played in, statistics, charts,
downloads."""
