"""The venue board on the bar's TV: what it shows tonight, and the news that keeps it live."""
